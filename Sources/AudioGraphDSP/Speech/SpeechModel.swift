import Foundation

/// A small fitted model of whether a frame is speech: a one-hidden-layer network over the
/// frame's measurements and their recent history, giving a log-odds.
///
/// Inputs (`instantCount` per frame): the compressed likelihood ratio, harmonicity, the power
/// over the noise estimate in eight bands from 100 Hz to 4 kHz, the 4-8 kHz ratio, the level
/// below the talker's loud level and the level's change from the last frame; each also as a
/// fast (about 30 ms) and a slow (about 100 ms) running mean, plus a running low quantile of
/// the likelihood ratio (high in babble, low in steady noise). Weights: `SpeechModel+Weights`,
/// fitted by `Tools/vad_model` (how: its header and TUNING.md). Real-time safe: buffers made
/// at set-up.
final class SpeechModel {
    /// Likelihood ratio, harmonicity, the bands, the 4-8 kHz ratio, level, level change.
    static let instantCount = 2 + SpeechFeatures.bandCount + 3
    static let featureCount = 3 * instantCount + 1
    static let fastMemory: Float = 0.6
    static let slowMemory: Float = 0.9

    /// The last frame's features (`featureCount`), before standardising.
    let features: UnsafeMutablePointer<Float>
    /// The hidden layer's weights with the standardisation folded in, one vector of the
    /// hidden units' weights per feature; its biases; the output weights.
    private let columns: UnsafeMutablePointer<SIMD16<Float>>
    private let hiddenBias: SIMD16<Float>
    private let outputWeights: SIMD16<Float>
    private var previousLevel: Float = 0
    private var floor: Float = 0
    private var started = false

    init() {
        precondition(Weights.hiddenCount == 16, "SpeechModel+Weights.swift: 16 hidden units expected")
        let f = Self.featureCount
        features = .allocate(capacity: f)
        columns = .allocate(capacity: f)
        // w·((x - mean)·scale) + b = (w·scale)·x + (b - Σ w·scale·mean)
        var bias = SIMD16<Float>(Weights.hiddenBias)
        for i in 0..<f {
            var column = SIMD16<Float>()
            for h in 0..<16 { column[h] = Weights.hiddenWeights[h * f + i] * Weights.scale[i] }
            columns[i] = column
            bias -= column * Weights.mean[i]
        }
        hiddenBias = bias
        outputWeights = SIMD16<Float>(Weights.outputWeights)
        reset()
    }

    deinit {
        features.deallocate()
        columns.deallocate()
    }

    func reset() {
        features.update(repeating: 0, count: Self.featureCount)
        previousLevel = 0
        floor = 0
        started = false
    }

    /// Takes in one measured frame: `m` and the band ratios (`bands`, log10) from
    /// ``SpeechFeatures``, the compressed likelihood ratio `llr` and `loudLevel` from
    /// ``SpeechEvidence``.
    func observe(_ m: (llr: Float, harmonicity: Float, level: Float, high: Float),
                 bands: UnsafePointer<Float>, llr: Float, loudLevel: Float) {
        let n = Self.instantCount
        let x = features
        x[0] = llr
        x[1] = m.harmonicity
        let bandCount = SpeechFeatures.bandCount
        for b in 0..<bandCount { x[2 + b] = min(max(bands[b], -0.5), 3) }
        x[2 + bandCount] = min(max(log10(max(m.high, 1e-3)), -1), 3)
        x[3 + bandCount] = min(max((m.level - loudLevel) / 10, -6), 1)
        x[4 + bandCount] = started ? min(abs(m.level - previousLevel) / 10, 3) : 0
        previousLevel = m.level
        if !started {
            for i in 0..<n { x[n + i] = x[i]; x[2 * n + i] = x[i] }
            floor = llr
            started = true
        } else {
            for i in 0..<n {
                x[n + i] = Self.fastMemory * x[n + i] + (1 - Self.fastMemory) * x[i]
                x[2 * n + i] = Self.slowMemory * x[2 * n + i] + (1 - Self.slowMemory) * x[i]
            }
            // Down 0.04 below, up 0.01 above: settles where a fifth of the frames lie below.
            floor = max(0, floor + (llr < floor ? -0.04 : 0.01))
        }
        x[3 * n] = floor
    }

    /// The log-odds that the last observed frame is speech.
    func logit() -> Float {
        var a = hiddenBias
        for i in 0..<Self.featureCount { a += columns[i] * features[i] }
        var out = Weights.outputBias
        for h in 0..<16 { out += outputWeights[h] * tanh(a[h]) }
        return out
    }
}
