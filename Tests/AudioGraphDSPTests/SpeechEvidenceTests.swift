import Testing

@testable import AudioGraphDSP

/// The vad's talker level (``SpeechEvidence``): what it learns from, and what it does not.
@Suite struct SpeechEvidenceTests {
    /// A frame at `level` dBFS with some sound above the noise.
    static func frame(_ level: Float) -> (llr: Float, harmonicity: Float, level: Float, high: Float) {
        (llr: 2, harmonicity: 0.5, level: level, high: 1)
    }

    /// The talker at -20 dBFS for half a second, then four seconds of an answer's residual echo
    /// at -45 dBFS (`holding`: heard through a canceller), then one frame of the residual at its
    /// loudest, -38 dBFS: its background gate, and the talker's level before it.
    static func residualAfterAnswer(holding: Bool) -> (gate: Float, loudLevel: Float) {
        var e = SpeechEvidence(background: 15)
        var n: Int64 = 0
        for _ in 0..<50 { n += 1; _ = e.measure(frame(-20), frame: n) }
        for _ in 0..<400 { n += 1; _ = e.measure(frame(-45), frame: n, holdingLevel: holding) }
        let level = e.loudLevel
        n += 1
        return (e.measure(frame(-38), frame: n, holdingLevel: holding).gate, level)
    }

    @Test func overAnAnswerHeardThroughACancellerTheTalkersLevelDoesNotFall() {
        let held = Self.residualAfterAnswer(holding: true)
        let learnt = Self.residualAfterAnswer(holding: false)
        #expect(abs(held.loudLevel - -20) < 0.5, "held at the talker's -20 dBFS: \(held.loudLevel)")
        #expect(learnt.loudLevel < -25, "without the hold it falls 1.5 dB a second: \(learnt.loudLevel)")
        // 18 dB under the talker is background (15 dB, faded over 6); 12 dB under what the
        // level fell to is not.
        #expect(held.gate < 0.6, "the residual's loudest frame, 18 dB under the talker: gate \(held.gate)")
        #expect(learnt.gate == 1, "against the fallen level it counts in full: gate \(learnt.gate)")
    }

    @Test func aLouderVoiceOverTheAnswerStillRaisesTheLevel() {
        var e = SpeechEvidence(background: 15)
        var n: Int64 = 0
        for _ in 0..<50 { n += 1; _ = e.measure(Self.frame(-30), frame: n) }
        for _ in 0..<30 { n += 1; _ = e.measure(Self.frame(-15), frame: n, holdingLevel: true) }
        #expect(e.loudLevel > -16, "a user louder than before, over the answer: \(e.loudLevel)")
    }
}
