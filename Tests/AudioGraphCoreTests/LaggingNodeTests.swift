import Foundation
import Synchronization
import Testing

@testable import AudioGraphCore

/// A sink that works through its input on a thread of its own, slower than the render
/// thread (as the recognizer does), and reports each block's end as a `level` event from
/// node "lag", stamped at that time. A double for engine logic: the recognizer's own
/// ordering is tested on real speech in the session tests.
final class LaggingSink: AudioNode {
    static let descriptor = NodeDescriptor(
        type: "lagging-sink", summary: "Reports block ends from a slow thread (tests).", role: .sink,
        make: { _ throws(GraphError) in LaggingSink() })

    private let pending = Locked<[Double]>([])
    private let results = Locked(StreamEvents([], through: -.infinity))
    private let done = Atomic<Bool>(false)
    private let exited = Atomic<Bool>(false)

    func prepare(_ context: PrepareContext) throws(EngineError) {
        let box = UncheckedSendable(self)
        Thread { box.value.work() }.start()
    }

    /// Test double: locks on the render thread, which real nodes must not.
    func process(_ io: inout ProcessIO) -> FlowStatus {
        let b = io.inputs[0]
        let end = b.time + Double(b.frameLength) / b.format.sampleRate
        pending.withLock { $0.append(end) }
        return .ok
    }

    private func work() {
        while true {
            let next = pending.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            guard let end = next else {
                if done.load(ordering: .acquiring) && pending.withLock({ $0.isEmpty }) { break }
                usleep(200)
                continue
            }
            usleep(2000)  // far slower than rendering a block
            results.withLock {
                $0.events.append(StreamEvent(at: end, .level(node: "lag", t: end, rms: 0, peak: 0)))
                $0.through = end
            }
        }
        results.withLock { $0.through = .infinity }
        exited.store(true, ordering: .releasing)
    }

    func finish(_ reason: EndReason) throws(EngineError) {
        done.store(true, ordering: .releasing)
        while !exited.load(ordering: .acquiring) { usleep(500) }
    }

    func takeStreamEvents(nodeId: String) -> StreamEvents? {
        results.withLock { r in
            defer { r.events.removeAll() }
            return r
        }
    }
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
}
