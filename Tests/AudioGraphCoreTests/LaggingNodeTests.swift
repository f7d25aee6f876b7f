import Foundation
import Synchronization
import Testing

@testable import AudioGraphCore

/// A sink that works through its input on a `LaggingStage`, slower than the render thread
/// (as the recognizer does), and reports each block's end as a `level` event from node
/// "lag", stamped at that time. A double for engine logic: the recognizer's own ordering is
/// tested on real speech in the session tests.
final class LaggingSink: AudioNode {
    static let descriptor = NodeDescriptor(
        type: "lagging-sink", summary: "Reports block ends from a slow thread (tests).", role: .sink,
        make: { _ throws(GraphError) in LaggingSink() })

    private var stage: LaggingStage?

    func prepare(_ context: PrepareContext) throws(EngineError) {
        let stage = LaggingStage(name: "lagging-sink", format: context.inputFormats[0], maxFrames: context.maxFrames,
                                 blockCount: 64, policy: .block, eventsReady: context.eventsReady)
        self.stage = stage
        stage.start { stage in
            while let (index, block) = stage.next() {
                let end = block.endTime
                stage.release(index)
                usleep(2000)  // far slower than rendering a block
                stage.emit(.level(node: "lag", t: end, rms: 0, peak: 0), at: end)
                stage.reached(end)
            }
        }
    }

    func process(_ io: inout ProcessIO) -> FlowStatus {
        if io.inputs[0].frameLength > 0 { stage.unsafelyUnwrapped.write(io.inputs[0]) }
        return .ok
    }

    func finish(_ reason: EndReason) throws(EngineError) { stage?.finish() }

    func abandon() { stage?.cancel() }

    func takeStreamEvents(nodeId: String) -> StreamEvents? { stage?.take() }
}

@Suite struct LaggingNodeTests {
    @Test func eventsOfANodeBehindTheAudioComeInStreamOrderWithTheRenderThreads() async throws {
        var registry = NodeRegistry.core
        registry.register(LaggingSink.descriptor)
        var g = GraphDescription(name: "lag")
        g.addNode("src", type: "test-signal", ["rate": 16000, "duration": 2])
        g.addNode("meter", type: "level-meter", ["interval": 0.01])
        g.addNode("slow", type: "lagging-sink")
        g.connect("src", to: "meter")
        g.connect("meter", to: "slow")
        let (recorder, reason) = try await run(g, registry: registry, options: .init(blockFrames: 160))
        #expect(reason == .endOfInput)
        let levels = recorder.allEvents.compactMap { e -> (String, Double)? in
            if case .level(let node, let t, _, _) = e { return (node, t) } else { return nil }
        }
        let lagging = levels.filter { $0.0 == "lag" }.count
        #expect(lagging >= 200 && levels.count - lagging == 200, "\(lagging) of \(levels.count)")
        let late = zip(levels, levels.dropFirst()).filter { $1.1 < $0.1 - 1e-9 }
        #expect(late.isEmpty, "first out of order: \(late.first.map { "\($0.0) then \($0.1)" } ?? "")")
        // Each block's meter reading and the slow node's report of it share a time: meter first.
        let lagFirst = zip(levels, levels.dropFirst()).filter { $0.1 == $1.1 && $0.0 == "lag" && $1.0 == "meter" }
        #expect(lagFirst.isEmpty, "\(lagFirst.first.map { "\($0.0) then \($0.1)" } ?? "")")
    }

    /// Between pieces of work a stage promises nothing before the next onset written, or the
    /// end of the audio written; cancel stops a worker mid-queue; finish joins.
    @Test func aStageReportsHowFarItIsComplete() throws {
        let f = StreamFormat(sampleRate: 100, channelCount: 1)
        let stage = LaggingStage(name: "test", format: f, maxFrames: 10, blockCount: 8, policy: .block)
        let gate = DispatchSemaphore(value: 0)
        let consumed = Atomic<Int>(0)
        stage.start { stage in
            while let (index, block) = stage.next() {
                gate.wait()  // one block per signal
                stage.release(index)
                stage.reachedIdle(after: block.endTime)
                consumed.add(1, ordering: .releasing)
            }
        }
        func block(_ at: Int, markers: [StreamMarker] = []) -> AudioBuffer {
            let b = AudioBuffer(format: f, frameCapacity: 10)
            b.sampleTime = Int64(at)
            b.frameLength = 10
            for m in markers { _ = b.addMarker(m) }
            return b
        }
        stage.write(block(0))                                                    // 0.0-0.1 s
        stage.write(block(10, markers: [StreamMarker(.speechStart, t: 0.12, decided: 0.15)]))  // 0.1-0.2 s
        stage.write(block(20))                                                   // 0.2-0.3 s
        func waitFor(_ n: Int) {
            gate.signal()
            while consumed.load(ordering: .acquiring) < n { usleep(100) }
        }
        #expect(stage.take().through == -.infinity, "nothing consumed yet")
        waitFor(1)
        #expect(stage.take().through == 0.15, "idle after 0.1 s: nothing before the onset decided at 0.15 s")
        waitFor(2)
        #expect(stage.take().through == 0.3, "past the onset, with none queued: the end of the audio written")
        waitFor(3)
        #expect(stage.take().through == 0.3)
        stage.emit(.warning(node: "x", message: "m"), at: 0.3)
        #expect(stage.take().events.map(\.at) == [0.3])
        stage.cancel()
        #expect(stage.isCancelled)
        stage.finish()
        #expect(stage.take().through == .infinity, "a finished stage is complete")
    }

    /// `onIdle` runs while the worker waits for a block and the input goes on, never once the
    /// input has ended: a recognizer prepares its decoder then, and a stream that ends with no
    /// speech never waits for that work.
    @Test func aWorkerIsToldWhenItIsIdleUntilTheInputEnds() throws {
        let f = StreamFormat(sampleRate: 100, channelCount: 1)
        let stage = LaggingStage(name: "test", format: f, maxFrames: 10, blockCount: 8, policy: .block)
        let idle = Atomic<Int>(0), taken = Atomic<Int>(0), idleAfterEnd = Atomic<Int>(0), ended = Atomic<Bool>(false)
        stage.start { stage in
            while let (index, _) = stage.next(onInputEnd: { ended.store(true, ordering: .releasing) }, onIdle: {
                idle.add(1, ordering: .releasing)
                if ended.load(ordering: .acquiring) { idleAfterEnd.add(1, ordering: .releasing) }
            }) {
                stage.release(index)
                taken.add(1, ordering: .releasing)
            }
        }
        while idle.load(ordering: .acquiring) == 0 { usleep(100) }  // nothing written: idle
        let b = AudioBuffer(format: f, frameCapacity: 10)
        b.frameLength = 10
        stage.write(b)
        while taken.load(ordering: .acquiring) < 1 { usleep(100) }
        stage.endInput()
        while !ended.load(ordering: .acquiring) { usleep(100) }
        let idleAtEnd = idle.load(ordering: .acquiring)
        usleep(30_000)  // several of the worker's 5 ms waits
        #expect(idle.load(ordering: .acquiring) == idleAtEnd && idleAfterEnd.load(ordering: .acquiring) == 0,
                "idle calls after the input ended: \(idle.load(ordering: .acquiring) - idleAtEnd)")
        stage.finish()
    }
}
