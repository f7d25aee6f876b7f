import Foundation
import Testing

@testable import AudioGraphCore

@Suite struct AudioEngineTests {
    static func rampGraph(frames: Int, gainDB: Double = 0) -> GraphDescription {
        var g = GraphDescription(name: "ramp")
        g.addNode("src", type: "ramp", ["frames": .number(Double(frames))])
        g.addNode("gain", type: "gain", ["db": .number(gainDB)])
        g.addNode("out", type: "null-sink")
        g.connect("src", to: "gain")
        g.connect("gain", to: "out")
        return g
    }

    /// A sine that never ends into a null sink.
    static let endless: GraphDescription = {
        var g = GraphDescription(name: "endless")
        g.addNode("s", type: "test-signal", ["duration": 0])
        g.addNode("out", type: "null-sink")
        g.connect("s", to: "out")
        return g
    }()

    @Test(arguments: [1, 100, 1024, 4096])
    func tapSeesEveryFrameInOrderInItsBufferSize(size: Int) async throws {
        let frames = 10_007
        let (r, reason) = try await run(Self.rampGraph(frames: frames), registry: .testing, tap: ("gain", size))
        #expect(reason == .endOfInput)
        let bufs = r.allBuffers
        #expect(bufs.dropLast().allSatisfy { $0.frames == size }, "every buffer but the last has the requested size")
        #expect(bufs.reduce(0) { $0 + $1.frames } == frames, "no frame lost or duplicated")
        var next: Int64 = 0
        for b in bufs {
            #expect(b.time == next && b.first == Float(next), "contiguous stream time and content")
            next += Int64(b.frames)
            #expect(b.last == Float(next - 1))
        }
    }

    @Test func slowTapLosesNothingOnFileInput() async throws {
        let (r, _) = try await run(Self.rampGraph(frames: 200_000), registry: .testing, tap: ("src", 256), slowTap: true)
        #expect(r.allBuffers.reduce(0) { $0 + $1.frames } == 200_000)
    }

    @Test func eventsEndWithEndAndStartListening() async throws {
        var g = Self.rampGraph(frames: 16000)
        g.addNode("meter", type: "level-meter", ["interval": 0.25])
        g.addNode("o2", type: "null-sink")
        g.connect("gain", to: "meter")
        g.connect("meter", to: "o2")
        let (r, _) = try await run(g, registry: .testing)
        let ev = r.allEvents
        #expect(ev.first == .state(.listening))
        #expect(ev.last == .end(.endOfInput))
        let times = ev.compactMap { if case .level(_, let t, _, _) = $0 { return t } else { return nil } }
        #expect(times == [0.25, 0.5, 0.75, 1.0], "one level event per interval of stream time, in order")
    }

    @Test func fastAndRealtimeRunsGiveIdenticalEventsAndAudio() async throws {
        var g = GraphDescription(name: "det")
        g.addNode("noise", type: "test-signal", ["signal": "pink", "duration": 0.4, "rate": 16000])
        g.addNode("meter", type: "level-meter", ["interval": 0.05])
        g.addNode("out", type: "null-sink")
        g.connect("noise", to: "meter")
        g.connect("meter", to: "out")
        let (fast, _) = try await run(g, tap: ("meter", 333))
        let started = Date()
        let (slow, _) = try await run(g, options: .init(realtime: true), tap: ("meter", 333))
        #expect(Date().timeIntervalSince(started) > 0.3, "realtime run is paced")
        #expect(fast.allEvents == slow.allEvents)
        #expect(fast.allBuffers.map(\.first) == slow.allBuffers.map(\.first))
        #expect(fast.allBuffers.map(\.last) == slow.allBuffers.map(\.last))
    }

    @Test func gainScalesSamples() async throws {
        let (r, _) = try await run(Self.rampGraph(frames: 2000, gainDB: -6.020599913), registry: .testing, tap: ("gain", 2000))
        let b = try #require(r.allBuffers.first)
        #expect(abs(b.last - 1999 / 2) < 0.01)
    }

    @Test func mixerSumsInputsAndMixesChannels() async throws {
        var g = GraphDescription(name: "mix")
        g.addNode("a", type: "test-signal", ["signal": "sine", "frequency": 100, "level": -6, "rate": 16000, "duration": 0.5])
        g.addNode("b", type: "test-signal", ["signal": "sine", "frequency": 100, "level": -6, "rate": 16000, "channels": 2,
                                             "duration": 0.25])
        g.addNode("m", type: "mixer", ["channels": 1])
        g.addNode("out", type: "null-sink")
        g.connect("a", to: "m"); g.connect("b", to: "m"); g.connect("m", to: "out")
        let (r, reason) = try await run(g, tap: ("m", 16000))
        #expect(reason == .endOfInput)
        let total = r.allBuffers.reduce(0) { $0 + $1.frames }
        #expect(total == 8000, "output lasts as long as the longest input")
    }

    @Test func stopDrainsAndEndsStopped() async throws {
        let g = Self.endless
        let engine = try AudioEngine(graph: g, registry: .core, options: .init(realtime: true))
        try engine.start()
        try await Task.sleep(for: .milliseconds(100))
        engine.stop()
        #expect(await engine.ended() == .stopped)
        #expect(engine.position > 0.05)
    }

    @Test func cancelEndsCancelled() async throws {
        let g = Self.endless
        let engine = try AudioEngine(graph: g, registry: .core, options: .init(realtime: true))
        try engine.start()
        engine.cancel()
        #expect(await engine.ended() == .cancelled)
    }

    @Test func startingTwiceIsAnErrorNotACrash() async throws {
        let engine = try AudioEngine(graph: Self.rampGraph(frames: 100), registry: .testing)
        try engine.start()
        #expect(throws: EngineError.self) { try engine.start() }
        _ = await engine.ended()
    }

    @Test func resetRunsAgainFromZero() async throws {
        let engine = try AudioEngine(graph: Self.rampGraph(frames: 5000), registry: .testing)
        let r = Recorder()
        try engine.prepare()
        try engine.installTap(onNode: "gain", bufferSize: 5000) { r.record($0) }
        _ = try await engine.run()
        try engine.reset()
        _ = try await engine.run()
        #expect(r.allBuffers.map(\.time) == [0, 0])
        #expect(r.allBuffers.map(\.frames) == [5000, 5000])
    }

    /// The handler runs on the delivery thread: waiting there for the end would wait for
    /// itself. Before, `waitUntilEnded(timeout:)` in the handler's `end` slept its whole timeout
    /// and said "not ended", `waitUntilEnded()` never returned, and `reset()` said "running".
    @Test func theEventHandlerLearnsTheEndWithoutWaitingForItself() async throws {
        let engine = try AudioEngine(graph: Self.endless, registry: .testing)
        let seen = Locked<[String]>([])
        let box = UncheckedSendable(engine)
        engine.setEventHandler { e in
            let e2 = box.value
            switch e {
            case .state(.listening):
                seen.withLock { $0.append("before the end: \(String(describing: e2.waitUntilEnded(timeout: 60)))") }
                e2.stop()
            case .end:
                seen.withLock { $0.append("at the end: \(String(describing: e2.waitUntilEnded(timeout: 60))), \(e2.waitUntilEnded())") }
                do {
                    try e2.reset()
                    seen.withLock { $0.append("reset") }
                } catch {
                    seen.withLock { $0.append("\(error)") }
                }
            default: break
            }
        }
        #expect(try await engine.run() == .stopped)
        let lines = seen.withLock { $0 }
        #expect(lines.count == 3)
        #expect(lines.first == "before the end: nil")
        #expect(lines.dropFirst().first == "at the end: Optional(AudioGraphCore.EndReason.stopped), stopped")
        #expect(lines.last?.contains("reset: called from the engine's event handler") == true, "\(lines)")
        engine.setEventHandler { _ in }
        try engine.reset()  // from here, once the run has ended
        try engine.start()
        engine.stop()
        #expect(await engine.ended() == .stopped)
    }

    /// Taps installed from several threads at once each get a slot of their own and every
    /// frame; before, two could take the same free slot and one heard nothing. A tap may
    /// remove itself from its own block.
    @Test func tapsInstalledFromManyThreadsAtOnceEachHearEveryFrame() async throws {
        for _ in 0..<50 {
            let engine = try AudioEngine(graph: Self.rampGraph(frames: 3000), registry: .testing)
            try engine.prepare()
            let frames = Locked<[Int]>([0, 0, 0, 0])
            DispatchQueue.concurrentPerform(iterations: 4) { i in
                _ = try? engine.installTap(onNode: "gain", bufferSize: 500) { b in frames.withLock { $0[i] += b.frameLength } }
            }
            #expect(throws: GraphError.self) { try engine.installTap(onNode: "gain", bufferSize: 500) { _ in } }  // a fifth
            #expect(try await engine.run() == .endOfInput)
            #expect(frames.withLock { $0 } == [3000, 3000, 3000, 3000])
        }
        let engine = try AudioEngine(graph: Self.endless, registry: .testing)
        try engine.prepare()
        let box = UncheckedSendable(engine), mine = Locked<Tap?>(nil), heard = Locked(0)
        mine.withLock { $0 = try? engine.installTap(onNode: "s", bufferSize: 256) { _ in
            heard.withLock { $0 += 1 }
            if let t = mine.withLock({ $0 }) { box.value.removeTap(t); box.value.stop() }
        } }
        #expect(try await engine.run() == .stopped)
        #expect(heard.withLock { $0 } >= 1)
    }

    @Test func tapOnUnknownNodeOrBusThrows() throws {
        let engine = try AudioEngine(graph: Self.rampGraph(frames: 10), registry: .testing)
        try engine.prepare()
        #expect(throws: GraphError.self) { try engine.installTap(onNode: "nope", bufferSize: 10) { _ in } }
        #expect(throws: GraphError.self) { try engine.installTap(onNode: "gain", bus: 1, bufferSize: 10) { _ in } }
        #expect(throws: GraphError.self) { try engine.installTap(onNode: "out", bufferSize: 10) { _ in } }
    }

    @Test func tapCanAskForAnotherChannelCountButNotAnotherRate() async throws {
        var g = GraphDescription(name: "stereo")
        g.addNode("s", type: "test-signal", ["channels": 2, "rate": 16000, "duration": 0.5])
        g.addNode("out", type: "null-sink")
        g.connect("s", to: "out")
        let engine = try AudioEngine(graph: g, registry: .core)
        try engine.prepare()
        let r = Recorder()
        let tap = try engine.installTap(onNode: "s", bufferSize: 800, format: StreamFormat(sampleRate: 16000, channelCount: 1)) {
            #expect($0.channelCount == 1)
            r.record($0)
        }
        #expect(tap.format.channelCount == 1)
        #expect(throws: GraphError.self) {
            try engine.installTap(onNode: "s", bufferSize: 800, format: StreamFormat(sampleRate: 48000, channelCount: 2)) { _ in }
        }
        _ = try await engine.run()
        #expect(r.allBuffers.reduce(0) { $0 + $1.frames } == 8000)
    }

    @Test func pauseHoldsTheStreamAndResumeContinues() async throws {
        let g = Self.endless
        let engine = try AudioEngine(graph: g, registry: .core, options: .init(realtime: true))
        let states = Recorder()
        engine.setEventHandler { states.record($0) }
        try engine.start()
        try await Task.sleep(for: .milliseconds(100))
        engine.pause()
        try await Task.sleep(for: .milliseconds(100))
        let held = engine.position
        try await Task.sleep(for: .milliseconds(200))
        #expect(engine.position == held, "nothing rendered while paused")
        engine.resume()
        try await Task.sleep(for: .milliseconds(200))
        #expect(engine.position > held)
        engine.stop()
        _ = await engine.ended()
        #expect(states.allEvents.contains(.state(.paused)))
    }

    @Test func removedTapStopsReceiving() async throws {
        let g = Self.endless
        let engine = try AudioEngine(graph: g, registry: .core, options: .init(realtime: true))
        try engine.prepare()
        let r = Recorder()
        let tap = try engine.installTap(onNode: "s", bufferSize: 480) { r.record($0) }
        try engine.start()
        try await Task.sleep(for: .milliseconds(150))
        engine.removeTap(tap)
        try await Task.sleep(for: .milliseconds(50))
        let n = r.allBuffers.count
        try await Task.sleep(for: .milliseconds(100))
        engine.stop()
        _ = await engine.ended()
        #expect(n > 0)
        #expect(r.allBuffers.count == n, "no buffers after removal")
    }

    /// Taps come and go while the engine runs: one installed after the start receives, and
    /// after it is removed, another on the same bus receives in its turn.
    @Test func tapsInstalledWhileRunningReceive() async throws {
        let engine = try AudioEngine(graph: Self.endless, registry: .core, options: .init(realtime: true))
        try engine.prepare()
        try engine.start()
        try await Task.sleep(for: .milliseconds(50))
        let first = Recorder()
        let tap = try engine.installTap(onNode: "s", bufferSize: 480) { first.record($0) }
        try await Task.sleep(for: .milliseconds(150))
        engine.removeTap(tap)
        let second = Recorder()
        _ = try engine.installTap(onNode: "s", bufferSize: 480) { second.record($0) }
        try await Task.sleep(for: .milliseconds(150))
        engine.stop()
        _ = await engine.ended()
        #expect(first.allBuffers.count > 0, "a tap installed while running receives")
        #expect(second.allBuffers.count > 0, "a tap installed after another was removed receives")
    }
}
