import Foundation
import Testing

@testable import AudioGraphCore

/// A sink whose first run fails at its end; later runs succeed.
final class FailOnceSink: AudioNode {
    static let descriptor = NodeDescriptor(
        type: "fail-once", summary: "Fails its first run (tests).", role: .sink, parameters: [],
        make: { _ throws(GraphError) in FailOnceSink() })
    var runs = 0
    func process(_ io: inout ProcessIO) -> FlowStatus { .ok }
    func finish(_ reason: EndReason) throws(EngineError) {
        runs += 1
        if runs == 1 { throw EngineError(.io, "the first run fails") }
    }
}

/// `reset()` rewinds an ended engine, errors included, and refuses a running one.
@Suite struct EngineResetTests {
    func graph() -> GraphDescription {
        var g = GraphDescription(name: "reset")
        g.addNode("src", type: "ramp", ["frames": 4000])
        g.addNode("out", type: "fail-once")
        g.connect("src", to: "out")
        return g
    }

    var registry: NodeRegistry {
        var r = NodeRegistry.testing
        r.register(FailOnceSink.descriptor)
        return r
    }

    @Test func aRunAfterAFailedRunEndsAsItself() async throws {
        let engine = try AudioEngine(graph: graph(), registry: registry)
        try engine.prepare()
        #expect(try await engine.run() == .error)
        try engine.reset()
        #expect(try await engine.run() == .endOfInput, "the first run's error is not the second's")
    }

    /// The async event stream of a reset engine delivers the second run's events (the first
    /// run's end finished the first stream).
    @Test func eventsAfterResetReachTheStream() async throws {
        var g = GraphDescription(name: "twice")
        g.addNode("src", type: "ramp", ["frames": 4000])
        g.addNode("out", type: "null-sink")
        g.connect("src", to: "out")
        let engine = try AudioEngine(graph: g, registry: registry)
        try engine.prepare()
        for run in 1...2 {
            let stream = engine.events
            #expect(try await engine.run() == .endOfInput)
            var ends = 0
            for await e in stream { if case .end = e { ends += 1 } }
            #expect(ends == 1, "run \(run): its end reached the stream")
            try engine.reset()
        }
    }

    @Test func resetRefusesARunningEngineAndAnUnpreparedOne() async throws {
        var g = GraphDescription(name: "endless")
        g.addNode("src", type: "test-signal", ["duration": 0])
        g.addNode("out", type: "null-sink")
        g.connect("src", to: "out")
        let idle = try AudioEngine(graph: g, registry: .core)
        #expect(throws: EngineError.self) { try idle.reset() }
        let engine = try AudioEngine(graph: g, registry: .core, options: .init(realtime: true))
        try engine.prepare()
        try engine.reset()  // prepared, not run: nothing to rewind
        let running = Task { try await engine.run() }
        try await Task.sleep(nanoseconds: 200_000_000)
        let error = #expect(throws: EngineError.self) { try engine.reset() }
        #expect(error?.code == .state)
        engine.stop()
        #expect(try await running.value == .stopped)
        try engine.reset()
    }

    /// A wav-sink whose file cannot be made again for the next run (a folder now stands at its
    /// path) ends that run with an error naming the file; before, the run ended as if written,
    /// its audio lost without a word.
    @Test func aSinkThatCannotWriteAfterResetFailsItsRun() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reset-sink-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("o.wav").path
        var g = GraphDescription(name: "g")
        g.addNode("s", type: "test-signal", ["duration": 1])
        g.addNode("o", type: "wav-sink", ["path": .string(out)])
        g.connect("s", to: "o")
        let engine = try AudioEngine(graph: g, registry: .core)
        #expect(try await engine.run() == .endOfInput)
        try FileManager.default.removeItem(atPath: out)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try engine.reset()
        let errors = Locked<[String]>([])
        engine.setEventHandler { e in if case .error(let x) = e { errors.withLock { $0.append(x.description) } } }
        #expect(try await engine.run() == .error)
        #expect(errors.withLock { $0 }.contains { $0.contains("node \"o\"") && $0.contains("o.wav: cannot create") }, "\(errors.withLock { $0 })")
    }

    /// `start` and `reset` from many threads at once (the engine is Sendable: an app's tasks
    /// may each try): one start runs, the others are told it already has; the resets rewind
    /// it once, and the next run writes its file whole. Before, each start compiled a plan of
    /// its own, whose wav-sink found the file claimed by another's ("another sink of this run
    /// writes"), and each reset reset every node again.
    @Test func startAndResetFromManyThreadsAtOnce() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reset-many-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("o.wav").path
        var g = GraphDescription(name: "g")
        g.addNode("s", type: "test-signal", ["duration": 1, "rate": 16000])
        g.addNode("o", type: "wav-sink", ["path": .string(out)])
        g.connect("s", to: "o")
        for round in 0..<20 {
            let engine = try AudioEngine(graph: g, registry: .core)
            let errors = Locked<[String]>([])
            engine.setEventHandler { e in if case .error(let x) = e { errors.withLock { $0.append(x.description) } } }
            let outcomes = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                do {
                    try engine.start()
                    outcomes.withLock { $0.append("started") }
                } catch {
                    outcomes.withLock { $0.append("\(error)") }
                }
            }
            let seen = outcomes.withLock { $0 }
            #expect(seen.filter { $0 == "started" }.count == 1 && seen.filter { $0.contains("already started") }.count == 7,
                    "round \(round): \(seen)")
            #expect(await engine.ended() == .endOfInput, "round \(round): \(errors.withLock { $0 })")
            DispatchQueue.concurrentPerform(iterations: 8) { _ in #expect(throws: Never.self) { try engine.reset() } }
            let again = try await engine.run()
            #expect(again == .endOfInput, "round \(round), after the resets: \(errors.withLock { $0 })")
            #expect((try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) == 44 + 32000, "round \(round)")
        }
    }
}
