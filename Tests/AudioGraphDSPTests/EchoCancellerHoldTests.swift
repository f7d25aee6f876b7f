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
    /// The echo: what plays 20 ms later at `echo`; with `room`, what plays is coloured and the
    /// echo has a reverberant tail.
    func run(_ parts: [(seconds: Double, plays: Bool)], _ params: [String: ParameterValue] = ["align": false],
             echo: Float = 0.1, room: Bool = false) throws -> PlaybackGate {
        try runWithEvents(parts, params, echo: echo, room: room).gate
    }

    /// As `run`, with the node's `echo-held` events (stream time, dB under what played).
    func runWithEvents(_ parts: [(seconds: Double, plays: Bool)], _ params: [String: ParameterValue] = ["align": false],
                       echo: Float = 0.1, room: Bool = false) throws -> (gate: PlaybackGate, held: [(t: Double, below: Double)]) {
        var ref: [Float] = []
        for (i, p) in parts.enumerated() {
            ref += p.plays ? Signals.noise(rms: 0.1, seconds: p.seconds, rate: Self.rate, seed: UInt64(i + 1))
                : [Float](repeating: 0, count: Int(p.seconds * Self.rate))
        }
        return try runWithEvents(playing: ref, params, echo: echo, room: room)
    }

    /// As `runWithEvents`, playing `ref`; with `interruptedAt`, a player on the node's gate
    /// stops for the user's speech (a barge-in) in the block holding that time (seconds).
    func runWithEvents(playing ref: [Float], _ params: [String: ParameterValue] = ["align": false],
                       echo: Float = 0.1, room: Bool = false,
                       interruptedAt: Double? = nil) throws -> (gate: PlaybackGate, held: [(t: Double, below: Double)]) {
        let format = StreamFormat(sampleRate: Self.rate, channelCount: 1)
        let h = try NodeHarness("echo-canceller", params, inputs: [format, format], maxFrames: 1024, registry: .builtin)
        let gate = try #require(h.node as? EchoCanceller).gate
        let cut = interruptedAt.map { Int($0 * Self.rate) }
        var ref = ref
        if room {  // speech is coloured: a one-pole low-pass (the filter converges more slowly)
            for i in 1..<ref.count { ref[i] += 0.9 * ref[i - 1] }
            ref = ref.map { $0 * 0.3 }
        }
        let late = 320
        var mic = [Float](repeating: 0, count: late) + ref.dropLast(late).map { echo * $0 }
        if room {  // a reverberant tail: 0.15 s of decaying reflections
            let tail = Signals.noise(rms: 0.25, seconds: 0.15, rate: Self.rate, seed: 99)
            for (k, g) in tail.enumerated() where k % 4 == 0 {
                let d = late + 16 + k, w = echo * g * Float(exp(-Double(k) / 800))
                for i in d..<mic.count { mic[i] += w * ref[i - d] }
            }
        }
        for k in stride(from: 0, to: ref.count, by: 1024) {
            let end = min(k + 1024, ref.count)
            if let cut, (k..<end).contains(cut) { gate.interrupt(at: Double(cut) / Self.rate - 0.3) }
            h.push(buses: [[Array(mic[k..<end])], [Array(ref[k..<end])]])
        }
        let held = h.takeEvents().compactMap { e -> (t: Double, below: Double)? in
            guard case let (_, .echoHeld(below, t))? = e.conversation else { return nil }
            return (t, below)
        }
        return (gate, held)
    }

    @Test func eachAnswerIsMeasuredAgainBeforeTheListenersHearOverIt() throws {
        let gate = try run([(3, true), (1.5, false), (2, true)])
        #expect(!gate.covers(2.5, 3.0), "the first answer is held within its first seconds")
        #expect(gate.covers(4.5, 4.7), "the next answer's start is left out while the hold is measured again")
        #expect(!gate.covers(6.0, 6.5), "and held again within a second")
    }

    /// The coherence stage acts on the first answer while the filter still converges, and the
    /// hold is measured after it: a loud reverberant echo is held within seconds (2.8 s), which
    /// the filter alone does not reach in 6 s.
    @Test func theCoherenceStageHoldsTheFirstAnswerSooner() throws {
        func firstHeld(_ coherence: Double) throws -> Double {
            let gate = try run([(6, true)], ["coherence": .number(coherence)], echo: 1, room: true)
            return stride(from: 0.5, to: 6, by: 0.1).first { !gate.covers($0, $0 + 0.1) } ?? 99
        }
        let with = try firstHeld(1), without = try firstHeld(0)  // 99: not within the 6 s
        #expect(with < 6 && with + 0.5 <= without, "held after \(with) s with the stage, \(without) s without")
    }

    /// Each hold is an `echo-held` event, with how far under what played the output stayed
    /// (at least `hold`); the gate stops marking what plays there (what it marked last ends
    /// within the echo's tail, 0.3 s, after the hold).
    @Test func eachHoldIsReportedWhenTheGateOpens() throws {
        let (gate, held) = try runWithEvents([(3, true), (1.5, false), (2, true)])
        try #require(held.count == 2, "one hold per answer: \(held)")
        for (h, answer) in zip(held, [0.0, 4.5]) {
            #expect(h.t > answer + 0.9 && h.t < answer + 2, "held within the answer's first seconds: \(h.t)")
            #expect(h.below >= 15, "at least `hold` dB under what played: \(h.below)")
        }
        let last = held[1].t, opens = gate.opens(after: last - 0.1, last)
        #expect(opens.map { $0 > last && $0 < last + 0.4 } == true, "the gate opens \(opens ?? -1) s, after the hold at \(last) s")
    }

    /// The assistant's earcons around a command (two short tones, 3 s apart), which a filter
    /// that held the last answer takes out whatever its path now, are not the next answer's
    /// measure: the answer after them is left out until measured itself (held on the tones,
    /// its first syllables were heard over and its own voice started speech).
    @Test func theEarconsBeforeAnAnswerAreNotItsMeasure() throws {
        func tone(_ notes: [(Double, Double)]) -> [Float] {
            notes.flatMap { Signals.sine($0.0, amplitude: 0.3, seconds: $0.1, rate: Self.rate) }
        }
        let silence = { (s: Double) in [Float](repeating: 0, count: Int(s * Self.rate)) }
        // Each tone touches eleven 20 ms frames, as a tone does that does not start on a frame.
        let earcons = silence(0.01) + tone([(660, 0.09), (990, 0.1)]) + silence(3) + tone([(990, 0.09), (660, 0.1)]) + silence(0.2)
        let answer = { (seed: UInt64) in Signals.noise(rms: 0.1, seconds: 3, rate: Self.rate, seed: seed) }
        let ref = answer(1) + silence(1.5) + earcons + answer(2)
        let second = Double(ref.count - 3 * Int(Self.rate)) / Self.rate, endTone = second - 0.2
        let (gate, held) = try runWithEvents(playing: ref)
        try #require(held.count == 2 && held[0].t < 3, "each answer is held once: \(held.map(\.t))")
        #expect(held[1].t >= endTone + 0.5, "held again only after a half second's window past the tones: at \(held[1].t) s, the last tone ending at \(endTone) s")
        #expect(gate.covers(second, held[1].t), "the next answer is left out until then")
    }

    @Test func aPauseInsideAnAnswerKeepsTheHold() throws {
        let gate = try run([(3, true), (0.5, false), (2, true)])
        #expect(!gate.covers(3.5, 3.7), "a pause shorter than a second is not a new answer")
    }

    /// A barge-in stopped the answer (the user talked over its echo): the next sound after a
    /// quarter second of quiet is measured again, though less than a second passed (the
    /// interrupting command's answer can follow the cancel earcon within half a second; held
    /// from the last answer, its own voice interrupted it in the reverberant room).
    @Test func aBargeInMakesTheNextSoundBeMeasuredAgain() throws {
        let silence = [Float](repeating: 0, count: Int(0.5 * Self.rate))
        let ref = Signals.noise(rms: 0.1, seconds: 3, rate: Self.rate, seed: 1) + silence
            + Signals.noise(rms: 0.1, seconds: 2, rate: Self.rate, seed: 2)
        let plain = try runWithEvents(playing: ref), barged = try runWithEvents(playing: ref, interruptedAt: 2.9)
        #expect(plain.held.count == 1 && !plain.gate.covers(3.5, 3.7), "without a barge-in the half-second pause keeps the hold (\(plain.held.count) holds)")
        #expect(barged.gate.covers(3.5, 3.7), "after a barge-in the next sound is left out by the listeners")
        #expect(barged.held.count == 2, "and held again once measured: \(barged.held.count) holds")
    }
}

/// The residual echo suppression (speexdsp's preprocessor) runs only while an echo may be
/// there, and its overlap-add holds one frame: the canceller keeps that frame of latency
/// throughout, so resuming it at the next answer neither replays the last frame it held (a
/// stale 20 ms of whatever ended the last echo: the user's voice, a residual) nor drops one.
struct EchoCancellerResumeTests {
    @Test func resumingTheSuppressionReplaysNothing() throws {
        let rate = 16000.0
        let format = StreamFormat(sampleRate: rate, channelCount: 1)
        let h = try NodeHarness("echo-canceller", ["align": false], inputs: [format, format], maxFrames: 1024, registry: .builtin)
        // An answer plays for a second while the user talks (loud) on the microphone, past the
        // end of the time its echo may take (1.3 s later, without `align`); 2 s later the next
        // answer, with a silent microphone.
        let answer = Signals.noise(rms: 0.1, seconds: 1, rate: rate, seed: 1)
        let user = Signals.noise(rms: 0.3, seconds: 2.5, rate: rate, seed: 2)
        let ref = answer + [Float](repeating: 0, count: Int(3.5 * rate)) + answer
        let mic = user + [Float](repeating: 0, count: Int(3 * rate))
        var out: [Float] = []
        for k in stride(from: 0, to: ref.count, by: 1024) {
            let end = min(k + 1024, ref.count)
            h.push(buses: [[Array(mic[k..<end])], [Array(ref[k..<end])]])
            out += h.takeOutput()[0]
        }
        let next = Int(4.5 * rate)
        let loudest = out[next...].map { abs($0) }.max() ?? 0
        #expect(loudest < 0.001, "the next answer's start replayed \(loudest) of old audio")
        // The user's voice ends once, 40 ms late (the filter's frame and the preprocessor's):
        // nothing of it is dropped when the suppression stops.
        let lastLoud = out[..<next].lastIndex { abs($0) > 0.01 } ?? 0
        #expect(abs(lastLoud - Int(2.54 * rate)) < 160, "the user's voice ended at \(Double(lastLoud) / rate) s")
    }
}
