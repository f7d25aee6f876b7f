import AudioGraph
import AudioGraphCore
import AudioGraphTestSupport
import Foundation
import Testing

@testable import AudioGraphDSP

/// When the `echo-canceller` marks what plays on its `playing` gate (the listeners leave it
/// out): until its output stays `hold` dB below the reference, measured again at each answer.
/// The node alone, a quiet echo (-20 dB, 20 ms late) of white noise.
struct EchoCancellerHoldTests {
    static let rate = 16000.0

    /// Runs `parts` (seconds of sound, or of silence when false) through the node; its gate.
    func run(_ parts: [(seconds: Double, plays: Bool)]) throws -> PlaybackGate {
        let format = StreamFormat(sampleRate: Self.rate, channelCount: 1)
        let h = try NodeHarness("echo-canceller", ["align": false], inputs: [format, format], maxFrames: 1024, registry: .builtin)
        var ref: [Float] = []
        for (i, p) in parts.enumerated() {
            ref += p.plays ? Signals.noise(rms: 0.1, seconds: p.seconds, rate: Self.rate, seed: UInt64(i + 1))
                : [Float](repeating: 0, count: Int(p.seconds * Self.rate))
        }
        let late = 320
        let mic = [Float](repeating: 0, count: late) + ref.dropLast(late).map { 0.1 * $0 }
        for k in stride(from: 0, to: ref.count, by: 1024) {
            let end = min(k + 1024, ref.count)
            h.push(buses: [[Array(mic[k..<end])], [Array(ref[k..<end])]])
        }
        return try #require(h.node as? EchoCanceller).gate
    }

    @Test func eachAnswerIsMeasuredAgainBeforeTheListenersHearOverIt() throws {
        let gate = try run([(3, true), (1.5, false), (2, true)])
        #expect(!gate.covers(2.5, 3.0), "the first answer is held within its first seconds")
        #expect(gate.covers(4.5, 4.7), "the next answer's start is left out while the hold is measured again")
        #expect(!gate.covers(6.0, 6.5), "and held again within a second")
    }

    @Test func aPauseInsideAnAnswerKeepsTheHold() throws {
        let gate = try run([(3, true), (0.5, false), (2, true)])
        #expect(!gate.covers(3.5, 3.7), "a pause shorter than a second is not a new answer")
    }
}
