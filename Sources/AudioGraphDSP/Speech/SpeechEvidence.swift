import Foundation

/// Whether a frame has sound above the noise at all, and whether it is loud enough to be the
/// talker's: the vad's level-based measures, beside the fitted ``SpeechModel``.
///
/// `signal` is the compressed likelihood ratio of the frame against the noise spectrum, plus
/// periodicity where there is signal above the noise to be periodic: it extends a word's
/// decaying tail. `gate` fades frames more than `background` dB below the talker's recent
/// loud level (babble, distant voices) from 1 to 0 over `backgroundFade` dB, with slack for a
/// word's decaying end; 1 when `background` is 0. Constants: `VoiceActivityDetector.Tuning`.
/// Real-time safe.
struct SpeechEvidence {
    typealias Tuning = VoiceActivityDetector.Tuning

    /// dB below the talker's loud level at which frames stop counting as speech (0: off).
    let background: Float
    /// The talker's loud level: about the 98th percentile of frame levels (dBFS).
    private(set) var loudLevel: Float = -100
    private var lastLoudFrame: Int64 = -1000
    /// The room's quiet level: about the 5th percentile of frame levels (dBFS); digital
    /// silence is left out.
    private(set) var floorLevel: Float = -100

    init(background: Float) { self.background = background }

    mutating func reset() {
        loudLevel = -100
        lastLoudFrame = -1000
        floorLevel = -100
    }

    /// The signal and background gate of frame `frame` (numbered from 1) with measurement `m`,
    /// and the compressed likelihood ratio, log(1 + llr), which the model reads too. With
    /// `holdingLevel` (what the graph plays is heard through a canceller) the loud level may
    /// rise but does not fall: the answer's residual echo says nothing of the talker.
    mutating func measure(_ m: (llr: Float, harmonicity: Float, level: Float, high: Float),
                          frame: Int64, holdingLevel: Bool = false) -> (signal: Float, gate: Float, llr: Float) {
        let llr = log1p(max(m.llr, 0))
        var signal = llr + Tuning.harmonicityWeight * max(0, m.harmonicity - Tuning.harmonicityFloor) * min(1, llr)
        if m.level < Tuning.silenceLevel { signal = min(signal, 0) }
        if frame == 1 { loudLevel = m.level }
        if m.level >= Tuning.digitalSilenceLevel {
            if floorLevel <= -100 {
                floorLevel = m.level
            } else {
                floorLevel = m.level < floorLevel ? max(m.level, floorLevel - Tuning.floorFall) : floorLevel + Tuning.floorRise
            }
        }
        if m.level > loudLevel {
            loudLevel += Tuning.loudRise
        } else if !holdingLevel {
            loudLevel -= frame <= Tuning.youngLoudFrames ? Tuning.loudRise : Tuning.loudFall
        }
        guard background > 0 else { return (signal, 1, llr) }
        if m.level >= loudLevel - background { lastLoudFrame = frame }
        let slack: Float = frame - lastLoudFrame <= Tuning.decayFrames ? Tuning.decaySlack : 0
        let below = (loudLevel - background - slack) - m.level
        return (signal, below > 0 ? max(0, 1 - below / Tuning.backgroundFade) : 1, llr)
    }
}
