import Foundation
import Synchronization
import Testing

@testable import AudioGraphCore

/// A node working behind the audio that finishes `delay` seconds after its input has ended
/// (a decoder's last final pass), reporting its progress through the audio as it goes. The
/// render thread writes what the delivery thread reads: atomics.
final class LateFinisher: AudioNode, @unchecked Sendable {
    static let descriptor = NodeDescriptor(
        type: "late-finisher", summary: "Works behind the audio and finishes late (tests).", role: .sink,
        parameters: [ParameterSpec("delay", .number(0...1), default: 0, unit: "s", help: "how late")],
        make: { p throws(GraphError) in LateFinisher(delay: p.number("delay")) })
    let delay: Double
    private let through = Atomic<UInt64>((-Double.infinity).bitPattern)
    private let endedAt = Atomic<UInt64>(Double.nan.bitPattern)
    init(delay: Double) { self.delay = delay }
    var worksBehind: Bool { true }
    func process(_ io: inout ProcessIO) -> FlowStatus {
        let input = io.inputs[0]
        let t = max(Double(bitPattern: through.load(ordering: .relaxed)),
                    input.time + Double(input.frameLength) / input.format.sampleRate)
        through.store(t.bitPattern, ordering: .releasing)
        if io.inputsEnded && Double(bitPattern: endedAt.load(ordering: .relaxed)).isNaN {
            endedAt.store(monotonicSeconds().bitPattern, ordering: .releasing)
        }
        return io.inputsEnded ? .endOfStream : .ok
    }
    func takeStreamEvents(nodeId: String) -> StreamEvents? {
        let t = Double(bitPattern: through.load(ordering: .acquiring))
        let ended = Double(bitPattern: endedAt.load(ordering: .acquiring))
        guard !ended.isNaN else { return StreamEvents([], through: t) }
        return StreamEvents([], through: monotonicSeconds() - ended >= delay ? .infinity : t)
    }
}

/// File input: how much an answering source plays after the input has ended does not depend
/// on how long the nodes behind the audio take to finish (it did: up to the lockstep slack
/// more, so an offline assistant's answers file was 0.13 s longer when the machine was idle).
@Suite struct AnswerTailTests {
    var registry: NodeRegistry {
        var r = NodeRegistry.testing
        r.register(LateFinisher.descriptor)
        r.register(ObservingSilence.descriptor)
        return r
    }

    func played(finishingLate delay: Double) async throws -> Double {
        var g = GraphDescription(name: "tail")
        g.addNode("src", type: "ramp", ["frames": 16000])
        g.addNode("behind", type: "late-finisher", ["delay": .number(delay)])
        g.addNode("answer", type: "observing-silence", ["frames": 0])
        g.addNode("out", type: "null-sink")
        g.connect("src", to: "behind")
        g.connect("answer", to: "out")
        let (r, reason) = try await run(g, registry: registry)
        #expect(reason == .endOfInput)
        let warnings = r.allEvents.compactMap { if case .warning(_, let m) = $0 { m } else { nil } }
        #expect(warnings.isEmpty, "the wait for delivery was given up: \(warnings)")
        let frames = r.allEvents.compactMap { if case .level("answer", _, let n, _) = $0 { n } else { nil } }
        return try #require(frames.first)
    }

    /// A node behind the audio that finishes only after the lockstep patience (a decoder's
    /// long last pass on a loaded machine): rendering goes on without it, the run warns, and
    /// the answering side still ends once the node has finished.
    @Test func aNodeFinishingAfterThePatienceIsWarnedAboutAndTheRunEnds() async throws {
        var g = GraphDescription(name: "tail")
        g.addNode("src", type: "ramp", ["frames": 16000])
        g.addNode("behind", type: "late-finisher", ["delay": 1])
        g.addNode("answer", type: "observing-silence", ["frames": 0])
        g.addNode("out", type: "null-sink")
        g.connect("src", to: "behind")
        g.connect("answer", to: "out")
        var options = AudioEngine.Options()
        options.lockstepPatience = 0.1
        let (r, reason) = try await run(g, registry: registry, options: options)
        #expect(reason == .endOfInput)
        let warnings = r.allEvents.compactMap { if case .warning(_, let m) = $0 { m } else { nil } }
        // One give-up per stall; a slow build (ThreadSanitizer) may stall more than once.
        #expect(!warnings.isEmpty && warnings.allSatisfy { $0.contains("delivery made no progress") }, "\(warnings)")
    }

    @Test func theAnswerEndsAtTheSameFrameWhateverTheDecodersPace() async throws {
        let prompt = try await played(finishingLate: 0)
        let late = try await played(finishingLate: 0.3)
        #expect(prompt == late, "frames played: \(prompt) when the node behind finished at once, \(late) when 0.3 s late")
        #expect(prompt >= 16000, "it plays at least as long as the input")
    }
}
