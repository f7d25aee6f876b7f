import Foundation

/// Per-frame speech evidence from one windowed spectrum (the VAD's measurement stage).
///
/// - Noise spectrum: minimum statistics (Martin 2001, simplified): the minimum of the
///   smoothed power over ~1.5 s, per bin, times a bias factor, so it follows slowly
///   changing noise and is not pulled up by speech.
/// - Likelihood ratio (Sohn, Kim & Sung 1999): per bin, with the a priori SNR from the
///   decision-directed estimate, averaged over the analysis band: the statistically
///   optimal test for a Gaussian speech/noise model.
/// - Harmonicity: the normalised autocorrelation peak, at pitch lags (2.5-16 ms), of the
///   noise-subtracted spectrum: voiced speech is periodic, stationary hum is subtracted
///   out, and fans, taps and clicks are not periodic.
struct SpeechFeatures {
    let fft: RealFFT
    let window: [Float]
    let bins: Range<Int>
    let minLag: Int, maxLag: Int
    private var smoothed: [Float]
    private var noise: [Float]
    private var previousClean: [Float]
    private var subMinima: [[Float]]  // rolling minima: subwindows x bins
    private var currentMin: [Float]
    private var framesInSub = 0
    private var subIndex = 0
    private var frames = 0

    static let subwindowFrames = 25  // x 6 subwindows = 1.5 s at 10 ms hops
    static let subwindows = 6
    static let bias: Float = 3.0

    init?(frameLength: Int, rate: Double) {
        var n = 1
        while n < frameLength { n *= 2 }
        guard let f = RealFFT(size: n) else { return nil }
        fft = f
        window = (0..<frameLength).map { Float(0.5 - 0.5 * cos(2 * Double.pi * (Double($0) + 0.5) / Double(frameLength))) }
        let hz = rate / Double(n)
        let lo = max(1, Int((100 / hz).rounded(.up)))
        let hi = min(n / 2, Int((4000 / hz).rounded(.down)))
        bins = lo..<max(lo + 1, hi + 1)
        minLag = max(1, Int(rate / 400))
        maxLag = min(n / 2 - 1, Int(rate / 62.5))
        let count = bins.count
        smoothed = Array(repeating: 0, count: count)
        noise = Array(repeating: 0, count: count)
        previousClean = Array(repeating: 0, count: count)
        subMinima = Array(repeating: Array(repeating: .greatestFiniteMagnitude, count: count), count: Self.subwindows)
        currentMin = Array(repeating: .greatestFiniteMagnitude, count: count)
    }

    mutating func reset() {
        for k in smoothed.indices { smoothed[k] = 0; noise[k] = 0; previousClean[k] = 0 }
        for s in subMinima.indices { for k in subMinima[s].indices { subMinima[s][k] = .greatestFiniteMagnitude } }
        for k in currentMin.indices { currentMin[k] = .greatestFiniteMagnitude }
        framesInSub = 0
        subIndex = 0
        frames = 0
    }

    /// Measures one frame (`frame` holds frameLength samples, oldest first).
    /// Returns (mean log-likelihood ratio, harmonicity 0...1, frame energy in dBFS).
    mutating func measure(_ frame: UnsafePointer<Float>, count: Int) -> (llr: Float, harmonicity: Float, level: Float) {
        var energy: Float = 0
        for i in 0..<count {
            fft.input[i] = frame[i] * window[i]
            energy += frame[i] * frame[i]
        }
        for i in count..<fft.size { fft.input[i] = 0 }
        fft.transform()
        let level = 10 * log10(max(energy / Float(count), 1e-12))
        frames += 1
        let first = frames == 1
        var llrSum: Float = 0
        for (j, k) in bins.enumerated() {
            let p = max(fft.power(k), 1e-12)
            smoothed[j] = first ? p : 0.7 * smoothed[j] + 0.3 * p
            currentMin[j] = min(currentMin[j], smoothed[j])
            // Noise: recursive average where the bin looks like noise, creeping up where it
            // does not (so a noise that starts is learnt in seconds), and never above the
            // bias-compensated minimum of the last 1.5 s (so it drops fast when noise drops).
            var m = currentMin[j]
            for s in 0..<Self.subwindows { m = min(m, subMinima[s][j]) }
            if frames <= 5 {
                noise[j] = first ? p : 0.7 * noise[j] + 0.3 * p
            } else {
                let g = p / max(noise[j], 1e-12)
                noise[j] = g < 2.5 ? 0.95 * noise[j] + 0.05 * p : noise[j] * 1.003
                if frames > Self.subwindowFrames { noise[j] = min(noise[j], Self.bias * m) }
            }
            let n = max(noise[j], 1e-12)
            let gamma = min(p / n, 1e4)
            let xi = max(0.98 * previousClean[j] / n + 0.02 * max(gamma - 1, 0), 1e-3)
            let gain = xi / (1 + xi)
            previousClean[j] = gain * gain * p
            llrSum += gamma * gain - log(1 + xi)
            // Reuse the spectrum for the harmonicity autocorrelation: keep SNR-weighted power.
            let clean = max(p - n, 0)
            fft.output[2 * k] = clean
            fft.output[2 * k + 1] = 0
        }
        framesInSub += 1
        if framesInSub == Self.subwindowFrames {
            for k in currentMin.indices { subMinima[subIndex][k] = currentMin[k] }  // in place: no allocation
            subIndex = (subIndex + 1) % Self.subwindows
            for k in currentMin.indices { currentMin[k] = .greatestFiniteMagnitude }
            framesInSub = 0
        }
        // Harmonicity: autocorrelation of the noise-subtracted power spectrum (inverse FFT).
        for k in 0..<(fft.size / 2 + 1) where !bins.contains(k) {
            fft.output[2 * k] = 0
            fft.output[2 * k + 1] = 0
        }
        fft.inverse()
        let r0 = fft.input[0]
        var peak: Float = 0
        if r0 > 0 {
            for lag in minLag...maxLag { peak = max(peak, fft.input[lag]) }
            peak /= r0
        }
        return (llrSum / Float(bins.count), max(0, min(1, peak)), level)
    }
}
