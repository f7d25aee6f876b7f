/// One frame through the vad's measuring stages, in order: the spectrum's features
/// (``SpeechFeatures``), the level-based signal and background gate (``SpeechEvidence``), and
/// the fitted model's running memory of them (``SpeechModel``).
///
/// The vad node and the feature dump that the model is fitted on (``SpeechFeatureDump``)
/// both run their frames through this one path, so the fit sees exactly what runs.
/// Real-time safe: everything is made at set-up.
final class SpeechFrameAnalysis {
    let features: SpeechFeatures
    let model = SpeechModel()
    private var evidence: SpeechEvidence

    /// Frames of `frameLength` samples at `rate`; `background` as ``SpeechEvidence`` takes it.
    /// Nil when FFTW cannot plan the frame's transform.
    init?(frameLength: Int, rate: Double, background: Float) {
        guard let f = SpeechFeatures(frameLength: frameLength, rate: rate) else { return nil }
        features = f
        evidence = SpeechEvidence(background: background)
    }

    func reset() {
        features.reset()
        model.reset()
        evidence.reset()
    }

    /// Measures frame `frame` (numbered from 1; `samples` holds the frame, oldest first) and
    /// takes it into the model's memory: the features' measurement, and the signal above the
    /// noise and background gate. The model's log-odds for it: `model.logit()`.
    /// `holdingLevel`: the talker's loud level does not fall over this frame (an echo plays).
    func measure(_ samples: UnsafePointer<Float>, count: Int, frame: Int64, holdingLevel: Bool = false)
        -> (m: (llr: Float, harmonicity: Float, level: Float, high: Float), signal: Float, gate: Float) {
        let m = features.measure(samples, count: count)
        let e = evidence.measure(m, frame: frame, holdingLevel: holdingLevel)
        model.observe(m, bands: features.bandSNR, llr: e.llr, loudLevel: evidence.loudLevel)
        return (m, e.signal, e.gate)
    }
}
