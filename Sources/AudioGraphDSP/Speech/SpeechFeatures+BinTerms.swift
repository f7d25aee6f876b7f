/// The per-bin half of ``SpeechFeatures/measure(_:count:)``.
extension SpeechFeatures {
    /// Each analysis bin's own update, from its spectrum (`bin`: the first analysis bin's
    /// (re, im) pair): the smoothed power and its running minimum, the noise estimate, the a
    /// priori SNR ξ (decision-directed) with its gain, and the power above the noise, which
    /// replaces the spectrum for the harmonicity autocorrelation. Leaves the terms the frame
    /// sums in `binPower`, `binNoise`, `binRatio`, `binFactor`. No bin reads another's values,
    /// and the frame's state is hoisted out of the loops, so they vectorise.
    @inline(__always)
    func binTerms(_ bin: UnsafeMutablePointer<Float>, count: Int, first: Bool, learning: Bool, capped: Bool) {
        let smoothed = smoothed, currentMin = currentMin, pastMin = pastMin, noise = noise
        let previousClean = previousClean, binPower = binPower, binNoise = binNoise
        let binRatio = binRatio, binFactor = binFactor, bias = Self.bias
        // The rest of a bin's update, once its noise estimate is known.
        @inline(__always) func terms(_ j: Int, _ p: Float, _ nj: Float) {
            noise[j] = nj
            let n = max(nj, 1e-12), inverseNoise = 1 / n
            binPower[j] = p
            binNoise[j] = n
            let gamma = min(p * inverseNoise, 1e4)
            let xi = max(0.98 * previousClean[j] * inverseNoise + 0.02 * max(gamma - 1, 0), 1e-3)
            let gain = xi / (1 + xi)
            previousClean[j] = gain * gain * p
            binRatio[j] = gamma * gain
            binFactor[j] = 1 + xi
            bin[2 &* j] = max(p - n, 0)
            bin[2 &* j &+ 1] = 0
        }
        @inline(__always) func power(_ j: Int) -> Float {
            let re = bin[2 &* j], im = bin[2 &* j &+ 1]
            return max(re * re + im * im, 1e-12)
        }
        // The minimum follows the smoothed power once it is smoothed: a first frame's raw
        // periodogram is tiny in some bins, and its minimum would hold the noise estimate there
        // far below the noise for the first 1.5 s (steady noise from the session's start taken
        // as speech). Noise: learnt outright over the first frames; then a recursive average
        // where the bin looks like noise, creeping up where it does not (so a noise that starts
        // is learnt in seconds), and never above the bias-compensated minimum of the last 1.5 s
        // (so it drops fast when noise drops).
        if first {
            for j in 0..<count {
                let p = power(j)
                smoothed[j] = p
                terms(j, p, p)
            }
        } else if learning {
            for j in 0..<count {
                let p = power(j)
                smoothed[j] = 0.7 * smoothed[j] + 0.3 * p
                terms(j, p, 0.7 * noise[j] + 0.3 * p)
            }
        } else if capped {
            for j in 0..<count {
                let p = power(j)
                let s = 0.7 * smoothed[j] + 0.3 * p
                smoothed[j] = s
                let m = min(currentMin[j], s)
                currentMin[j] = m
                let nj = noise[j]
                let next = p < 2.5 * nj ? 0.95 * nj + 0.05 * p : nj * 1.003
                terms(j, p, min(next, bias * min(m, pastMin[j])))
            }
        } else {
            for j in 0..<count {
                let p = power(j)
                let s = 0.7 * smoothed[j] + 0.3 * p
                smoothed[j] = s
                currentMin[j] = min(currentMin[j], s)
                let nj = noise[j]
                terms(j, p, p < 2.5 * nj ? 0.95 * nj + 0.05 * p : nj * 1.003)
            }
        }
    }
}
