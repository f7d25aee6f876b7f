import Foundation

/// How much a frame looks like the talker's speech: the vad's evidence, before any decision.
///
/// The compressed likelihood ratio of the frame against the noise spectrum, plus
/// periodicity where there is signal above the noise to be periodic, then two adaptations
/// that keep fluctuating noise out: frames `background` dB below the talker's recent loud
/// level fade out (babble, distant voices), and a running low quantile of the evidence itself
/// (which babble and clatter raise and stationary noise does not) is taken off it.
/// Constants: `VoiceActivityDetector.Tuning`. Real-time safe.
struct SpeechEvidence {
    typealias Tuning = VoiceActivityDetector.Tuning

    /// dB below the talker's loud level at which frames stop counting as speech (0: off).
    let background: Float
    /// The talker's loud level: about the 98th percentile of frame levels (dBFS).
    private(set) var loudLevel: Float = -100
    private var lastLoudFrame: Int64 = -1000
    /// Running low quantile of the evidence.
    private var floor: Float = 0

    init(background: Float) { self.background = background }

    mutating func reset() {
        loudLevel = -100
        lastLoudFrame = -1000
        floor = 0
    }

    /// The evidence of frame `frame` (numbered from 1) with measurement `m`, and the signal
    /// (the evidence before the background gate: is there sound above the noise at all?).
    /// `speaking`: whether speech is in progress (the floor adapts more slowly then).
    mutating func measure(_ m: (llr: Float, harmonicity: Float, level: Float, high: Float), frame: Int64,
                          speaking: Bool) -> (evidence: Float, signal: Float) {
        let llr = log1p(max(m.llr, 0))
        var evidence = llr + Tuning.harmonicityWeight * max(0, m.harmonicity - Tuning.harmonicityFloor) * min(1, llr)
        if m.level < Tuning.silenceLevel { evidence = min(evidence, 0) }
        let signal = evidence
        // Background gate.
        if frame == 1 { loudLevel = m.level }
        loudLevel += m.level > loudLevel ? Tuning.loudRise : -Tuning.loudFall
        if background > 0 {
            if m.level >= loudLevel - background { lastLoudFrame = frame }
            let slack: Float = frame - lastLoudFrame <= Tuning.decayFrames ? Tuning.decaySlack : 0
            let below = (loudLevel - background - slack) - m.level
            if below > 0 { evidence *= max(0, 1 - below / Tuning.backgroundFade) }
        }
        // Evidence floor.
        let step: Float = speaking ? Tuning.floorStepInSpeech : Tuning.floorStep
        floor = max(0, floor + (evidence < floor ? -step * Tuning.floorDown : step * Tuning.floorUp))
        evidence -= max(0, floor - Tuning.floorAllowance)
        return (evidence, signal)
    }
}
