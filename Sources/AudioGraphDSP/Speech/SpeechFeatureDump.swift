import Foundation

/// The vad's model inputs for a whole signal, frame by frame, measured exactly as the vad
/// measures them: what `Tools/vad_model` fits the model on (`audiograph-bench vad-features`).
/// Not part of the engine's API.
@_spi(Tuning) public enum SpeechFeatureDump {
    /// Values per frame: the frame's end (seconds), then the model's features.
    public static let width = 1 + SpeechModel.featureCount

    /// Every frame of `samples` (mono, `rate` Hz) with `frameSeconds` frames on the vad's hop.
    public static func frames(_ samples: [Float], rate: Double, frameSeconds: Double = 0.025) -> [Float] {
        let frameLength = Int((frameSeconds * rate).rounded())
        let hop = Int((VoiceActivityDetector.Tuning.hop * rate).rounded())
        // The background gate is off: the model reads only the loud level, and the gate is
        // applied after it.
        guard let analysis = SpeechFrameAnalysis(frameLength: frameLength, rate: rate, background: 0) else { return [] }
        var out: [Float] = []
        var frame: Int64 = 0
        samples.withUnsafeBufferPointer { x in
            var end = hop
            while end <= x.count {
                defer { end += hop }
                guard end >= frameLength else { continue }
                frame += 1
                _ = analysis.measure(x.baseAddress! + end - frameLength, count: frameLength, frame: frame, voicing: false)
                out.append(Float(Double(end) / rate))
                for i in 0..<SpeechModel.featureCount { out.append(analysis.model.features[i]) }
            }
        }
        return out
    }
}
