/// One frame through the vad's measuring stages, in order: the spectrum's features
/// (``SpeechFeatures``), the level-based signal and background gate (``SpeechEvidence``), the
/// fitted model's running memory of them (``SpeechModel``), and the frame's plain voicing
/// (``FrameVoicing``).
///
/// The vad node and the feature dump that the model is fitted on (``SpeechFeatureDump``)
/// both run their frames through this one path, so the fit sees exactly what runs.
/// Real-time safe: everything is made at set-up.
final class SpeechFrameAnalysis {
    let features: SpeechFeatures
    let model = SpeechModel()
    private var evidence: SpeechEvidence
    private let voicing: FrameVoicing
    /// The last frame's plain periodicity (``FrameVoicing``, 0...1; 0 for digital silence,
    /// and for a frame measured without it).
    private(set) var plainVoicing: Float = 0
    /// The room's quiet level (dBFS) as ``SpeechEvidence`` tracks it.
    var floorLevel: Float { evidence.floorLevel }

    /// Frames of `frameLength` samples at `rate`; `background` as ``SpeechEvidence`` takes it.
    /// Nil when FFTW cannot plan the frame's transform.
    init?(frameLength: Int, rate: Double, background: Float) {
        guard let f = SpeechFeatures(frameLength: frameLength, rate: rate),
              let v = FrameVoicing(length: frameLength, rate: rate) else { return nil }
        features = f
        voicing = v
        evidence = SpeechEvidence(background: background)
    }

    func reset() {
        features.reset()
        model.reset()
        evidence.reset()
        plainVoicing = 0
    }

    /// Measures frame `frame` (numbered from 1; `samples` holds the frame, oldest first) and
    /// takes it into the model's memory: the features' measurement, and the signal above the
    /// noise and background gate. The model's log-odds for it: `model.logit()`.
    /// `holdingLevel`: the talker's loud level does not fall over this frame (an echo plays).
    /// `voicing`: the frame's plain voicing is measured too (`plainVoicing`; a second pair of
    /// FFTs).
    func measure(_ samples: UnsafePointer<Float>, count: Int, frame: Int64, holdingLevel: Bool = false, voicing wanted: Bool)
        -> (m: (llr: Float, harmonicity: Float, level: Float, high: Float), signal: Float, gate: Float) {
        let m = features.measure(samples, count: count)
        let e = evidence.measure(m, frame: frame, holdingLevel: holdingLevel)
        model.observe(m, bands: features.bandSNR, llr: e.llr, loudLevel: evidence.loudLevel)
        plainVoicing = wanted && m.level >= VoiceActivityDetector.Tuning.digitalSilenceLevel ? voicing.measure { samples[$0] }.voicing : 0
        return (m, e.signal, e.gate)
    }
}
