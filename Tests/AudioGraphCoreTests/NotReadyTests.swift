import Foundation
import Synchronization
import Testing

@testable import AudioGraphCore

/// A processor that lets a block through only once a thread of its own has "worked" on it
/// (a stand-in for a decoder's verdict or a reader's data): until then it returns
/// `.notReady`, and the thread signals the engine's readiness when it is done.
final class ApprovingPass: AudioNode, @unchecked Sendable {
    static let descriptor = NodeDescriptor(
        type: "approving-pass", summary: "Passes a block once its thread approves it (tests).", role: .processor,
        parameters: [ParameterSpec("never", .bool, default: false, help: "never ready")],
        make: { p throws(GraphError) in ApprovingPass(never: p.bool("never")) })

    let never: Bool
    let approved = Atomic<Int>(0)
    var asked = 0, passed = 0
    private var readiness = Readiness()
    init(never: Bool) { self.never = never }

    func prepare(_ context: PrepareContext) throws(EngineError) { readiness = context.renderReady }

    func process(_ io: inout ProcessIO) -> FlowStatus {
        let input = io.inputs[0]
        guard input.frameLength > 0 else { return .ok }
        if never || approved.load(ordering: .acquiring) <= passed {
            if asked == passed {
                asked += 1
                let box = UncheckedSendable(self)
                Thread {  // approves it a little later, then signals, as a worker would
                    usleep(300)
                    box.value.approved.add(1, ordering: .releasing)
                    box.value.readiness.signal()
                }.start()
            }
            return .notReady
        }
        passed += 1
        io.outputs[0].copyFrames(from: input, count: input.frameLength)
        io.outputs[0].frameLength = input.frameLength
        return .ok
    }
}

/// A live source of a fixed length (not paced: the test's clock is its blocks).
final class LiveRamp: AudioNode {
    static let descriptor = NodeDescriptor(
        type: "live-ramp", summary: "A ramp that counts as live input (tests).", role: .source, isLive: true,
        make: { _ throws(GraphError) in LiveRamp() })
    var n = 0
    func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] {
        [StreamFormat(sampleRate: 16000, channelCount: 1)]
    }
    func process(_ io: inout ProcessIO) -> FlowStatus {
        let k = min(io.requestedFrames, 16000 - n)
        for i in 0..<k { io.outputs[0].channel(0)[i] = 0.5 }
        io.outputs[0].frameLength = k
        n += k
        return n >= 16000 ? .endOfStream : .ok
    }
}

/// A node working behind the audio that never reports (a decoder that stopped), for the
/// lockstep give-up.
final class SilentBehind: AudioNode {
    static let descriptor = NodeDescriptor(
        type: "silent-behind", summary: "Works behind the audio and never reports (tests).", role: .sink,
        make: { _ throws(GraphError) in SilentBehind() })
    var worksBehind: Bool { true }
    func process(_ io: inout ProcessIO) -> FlowStatus { io.inputsEnded ? .endOfStream : .ok }
    func takeStreamEvents(nodeId: String) -> StreamEvents? { StreamEvents([], through: 0) }
}

/// A source that answers what the graph hears (an observer: the run goes in lockstep):
/// silence, `frames` of it, or with `frames` 0 until every event about the input has been
/// delivered (`othersFinished`), as a speech-synth does. At its end it reports how many
/// frames it played as a `level` event's rms (tests only).
final class ObservingSilence: AudioNode {
    static let descriptor = NodeDescriptor(
        type: "observing-silence", summary: "Silence that observes the events (tests).", role: .source,
        parameters: [ParameterSpec("frames", .integer(0...1_000_000), default: 8192, help: "how much (0: until all was heard)")],
        make: { p throws(GraphError) in ObservingSilence(frames: p.integer("frames")) })
    let frames: Int
    var n = 0
    init(frames: Int) { self.frames = frames }
    var observesEvents: Bool { true }
    func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] {
        [StreamFormat(sampleRate: 16000, channelCount: 1)]
    }
    func process(_ io: inout ProcessIO) -> FlowStatus {
        if frames == 0 ? io.othersFinished : n >= frames {
            _ = io.emit(NodeEvent(.level, t: Double(n) / 16000, values: (Double(n), 0, 0, 0)))
            return .endOfStream
        }
        let k = frames == 0 ? io.requestedFrames : min(io.requestedFrames, frames - n)
        io.outputs[0].channel(0).update(repeating: 0, count: k)
        io.outputs[0].frameLength = k
        n += k
        return .ok
    }
}

/// A node not ready makes the engine wait in one place (file input) and never stalls live
/// rendering.
@Suite struct NotReadyTests {
    var registry: NodeRegistry {
        var r = NodeRegistry.testing
        r.register(ApprovingPass.descriptor)
        r.register(LiveRamp.descriptor)
        r.register(SilentBehind.descriptor)
        r.register(ObservingSilence.descriptor)
        return r
    }

    /// File input: every block waits for its approval and passes whole, in order.
    @Test func fileInputWaitsForTheNodeAndLosesNothing() async throws {
        var g = GraphDescription(name: "approve")
        g.addNode("src", type: "ramp", ["frames": 20000])
        g.addNode("pass", type: "approving-pass")
        g.addNode("out", type: "null-sink")
        g.connect("src", to: "pass")
        g.connect("pass", to: "out")
        let (r, reason) = try await run(g, registry: registry, tap: ("pass", 1024))
        #expect(reason == .endOfInput)
        let b = r.allBuffers
        #expect(b.reduce(0) { $0 + $1.frames } == 20000)
        #expect(zip(b, b.dropFirst()).allSatisfy { $1.time == $0.time + Int64($0.frames) && $1.first == $0.last + 1 })
    }

    /// Live input: a downstream node that never becomes ready does not hold the render thread:
    /// the level meter upstream of it reports through the whole second.
    @Test func liveRenderingGoesOnPastANodeThatIsNeverReady() async throws {
        var g = GraphDescription(name: "live")
        g.addNode("mic", type: "live-ramp")
        g.addNode("meter", type: "level-meter", ["interval": 0.1])
        g.addNode("stuck", type: "approving-pass", ["never": true])
        g.addNode("out", type: "null-sink")
        g.connect("mic", to: "meter")
        g.connect("meter", to: "stuck")
        g.connect("stuck", to: "out")
        let (r, reason) = try await run(g, registry: registry)
        #expect(reason == .endOfInput)
        let levels = r.allEvents.filter { if case .level = $0 { true } else { false } }
        #expect(levels.count >= 9, "level events through the second: \(levels.count)")
    }

    /// File input: a node that never becomes ready ends the run, after the patience, with one
    /// error naming it (30 s in a real run; 0.3 s here).
    @Test func aNodeNeverReadyEndsAFileRunWithAnErrorNamingIt() async throws {
        var g = GraphDescription(name: "stuck")
        g.addNode("src", type: "ramp", ["frames": 20000])
        g.addNode("stuck", type: "approving-pass", ["never": true])
        g.addNode("out", type: "null-sink")
        g.connect("src", to: "stuck")
        g.connect("stuck", to: "out")
        var options = AudioEngine.Options()
        options.readyPatience = 0.3
        let (r, reason) = try await run(g, registry: registry, options: options)
        #expect(reason == .error)
        let errors = r.allEvents.compactMap { if case .error(let e) = $0 { e } else { nil } }
        #expect(errors.count == 1 && errors.first?.node == "stuck" && errors.first?.message.contains("waited 0.3 s") == true, "\(errors)")
    }

    /// File input in lockstep: a node working behind the audio that stops reporting holds the
    /// render thread for the patience (5 s in a real run; 0.2 s here), then rendering goes on
    /// and the run says so once, in a warning.
    @Test func lockstepGivesUpOnANodeThatStoppedReportingAndWarns() async throws {
        var g = GraphDescription(name: "lockstep")
        g.addNode("src", type: "ramp", ["frames": 8192])
        g.addNode("behind", type: "silent-behind")
        g.addNode("answer", type: "observing-silence")
        g.addNode("out", type: "null-sink")
        g.connect("src", to: "behind")
        g.connect("answer", to: "out")
        var options = AudioEngine.Options()
        options.lockstepPatience = 0.2
        let (r, reason) = try await run(g, registry: registry, options: options)
        #expect(reason == .endOfInput)
        let warnings = r.allEvents.compactMap { if case .warning(_, let m) = $0 { m } else { nil } }
        #expect(warnings.count == 1 && warnings[0].contains("delivery made no progress for 0.2 s"), "\(warnings)")
    }
}
