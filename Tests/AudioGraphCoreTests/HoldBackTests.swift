import Foundation
import Synchronization
import Testing

@testable import AudioGraphCore

/// A live source that delivers a burst: 300 blocks as fast as the engine asks; whether it
/// holds a backlog is a parameter.
final class BurstSource: AudioNode {
    static let descriptor = NodeDescriptor(
        type: "burst", summary: "A live burst (tests).", role: .source,
        parameters: [ParameterSpec("holds", .bool, default: true, help: "holds a backlog")],
        isLive: true, make: { p throws(GraphError) in BurstSource(holds: p.bool("holds")) })
    let holds: Bool
    var blocks = 0
    init(holds: Bool) { self.holds = holds }
    var holdsBacklog: Bool { holds }
    func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] {
        [StreamFormat(sampleRate: 16000, channelCount: 1)]
    }
    func process(_ io: inout ProcessIO) -> FlowStatus {
        io.outputs[0].frameLength = io.requestedFrames
        blocks += 1
        return blocks >= 300 ? .endOfStream : .ok
    }
}

/// A node that works behind the audio with a queue of 4 blocks, taken by a thread of its
/// own at 5 ms a block (far slower than the burst, even under ThreadSanitizer, where a block
/// takes the render thread about 1 ms): a full queue drops, as a live recognizer's.
final class SlowBehind: AudioNode, @unchecked Sendable {
    static let descriptor = NodeDescriptor(
        type: "slow-behind", summary: "A slow consumer behind the audio (tests).", role: .sink,
        make: { _ throws(GraphError) in SlowBehind() })
    var queue: BlockQueue?
    let thread = WorkerThread(name: "slow-behind")
    let taken = Atomic<Int>(0)
    var worksBehind: Bool { true }
    var canTakeBlock: Bool { queue?.hasRoom ?? true }

    func prepare(_ context: PrepareContext) throws(EngineError) {
        let q = BlockQueue(format: context.inputFormats[0], maxFrames: context.maxFrames, blockCount: 4, policy: .drop)
        q.roomMade = context.renderReady
        queue = q
        let box = UncheckedSendable(self)
        thread.start { w in
            while true {
                if let (i, _) = q.next() {
                    usleep(5000)
                    box.value.taken.add(1, ordering: .relaxed)
                    q.release(i)
                } else if w.isStopping {
                    return
                } else {
                    q.waitForData(timeout: 0.01)
                }
            }
        }
    }
    func process(_ io: inout ProcessIO) -> FlowStatus {
        if io.inputs[0].frameLength > 0 { queue!.write(io.inputs[0]) }
        return .ok
    }
    func finish(_ reason: EndReason) throws(EngineError) {
        thread.requestStop()
        queue?.dataReady.signal()
        thread.join()
    }
}

/// Live input in a burst: the render thread is held back while a node behind the audio is
/// full and the source can keep the backlog, so nothing is dropped; past what the source
/// holds it renders on and the node drops (counted).
@Suite struct HoldBackTests {
    func run(holds: Bool) async throws -> (taken: Int, lost: Int) {
        var r = NodeRegistry.testing
        r.register(BurstSource.descriptor)
        r.register(SlowBehind.descriptor)
        var g = GraphDescription(name: "burst")
        g.addNode("mic", type: "burst", ["holds": .bool(holds)])
        g.addNode("asr", type: "slow-behind")
        g.connect("mic", to: "asr")
        let engine = try AudioEngine(graph: g, registry: r)
        try engine.prepare()
        let node = try #require(engine.node("asr") as? SlowBehind)
        #expect(try await engine.run() == .endOfInput)
        return (node.taken.load(ordering: .relaxed), node.queue!.lostBlocks.load(ordering: .relaxed))
    }

    @Test func aBurstIsHeldBackNotDropped() async throws {
        let (taken, lost) = try await run(holds: true)
        #expect(lost == 0 && taken == 300, "taken \(taken), lost \(lost)")
    }

    @Test func pastWhatTheSourceHoldsTheNodeDropsAndCounts() async throws {
        let (taken, lost) = try await run(holds: false)
        #expect(lost > 0 && taken + lost == 300, "taken \(taken), lost \(lost)")
    }
}
