import CDSPKernels
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
final class SpeechFeatures {
    let fft: RealFFT
    let bins: Range<Int>
    let highBins: Range<Int>
    private var highNoise: Float = 0
    let minLag: Int, maxLag: Int
    /// Per-bin state, one allocation each, made at set-up (no allocation per frame, and no
    /// exclusivity checks on the hot loop: the pointers are constants).
    private let window: UnsafeMutablePointer<Float>
    let smoothed: UnsafeMutablePointer<Float>
    let noise: UnsafeMutablePointer<Float>
    let previousClean: UnsafeMutablePointer<Float>
    /// Minimum of the completed subwindows (the rolling 1.5 s minimum is min(this, current)).
    let pastMin: UnsafeMutablePointer<Float>
    private let subMinima: UnsafeMutablePointer<Float>  // subwindows x bins
    let currentMin: UnsafeMutablePointer<Float>
    /// One frame's per-bin terms, summed in bin order after `binTerms`: power, noise,
    /// γ·G (the likelihood ratio's first term) and 1 + ξ.
    let binPower: UnsafeMutablePointer<Float>
    let binNoise: UnsafeMutablePointer<Float>
    let binRatio: UnsafeMutablePointer<Float>
    let binFactor: UnsafeMutablePointer<Float>
    private var framesInSub = 0
    private var subIndex = 0
    private var frames = 0
    /// Whether the noise estimate is young: within its first `youngNoiseFrames` measured
    /// frames (digital silence is not measured).
    var isYoung: Bool { frames <= VoiceActivityDetector.Tuning.youngNoiseFrames }
    /// The last frame's periodicity above 400 Hz (0...1), measured only while the noise estimate
    /// `isYoung` (the harmonicity after): a room's hum, whose harmonics lie below, keeps the whole
    /// band's harmonicity up without a voice. Costs a second inverse FFT in those frames only.
    private(set) var voicing: Float = 0
    /// The share of the last frame's power above the noise that lies below 1.2 kHz (0...1):
    /// a voice's first formant and low harmonics put most of it there; a creak's or a
    /// squeak's resonance, and the clicks of its pulses, do not.
    private(set) var lowShare: Float = 0
    /// Bands (of `bandEdges`) below 1.2 kHz, for `lowShare`.
    static let lowBands = bandEdges.firstIndex(of: 1200)!
    private let voicingStart: Int
    private let savedSpectrum: UnsafeMutablePointer<Float>
    /// The last frame's power over the noise estimate in each of `bandEdges`' bands, as
    /// log10 (the fitted ``SpeechModel`` reads them); 0 for a frame not measured.
    let bandSNR: UnsafeMutablePointer<Float>
    /// Band edges (Hz) of `bandSNR`: where speech's formants and its noise differ.
    static let bandEdges: [Double] = [100, 250, 400, 600, 850, 1200, 1700, 2400, 4000]
    static let bandCount = bandEdges.count - 1
    /// Where each band starts among the analysis bins (index j of `bins`), and the end.
    private let bandStart: UnsafeMutablePointer<Int>

    static let subwindowFrames = 25  // x 6 subwindows = 1.5 s at 10 ms hops
    static let subwindows = 6
    static let bias: Float = 3.0

    init?(frameLength: Int, rate: Double) {
        var n = 1
        while n < frameLength { n *= 2 }
        guard let f = RealFFT(size: n) else { return nil }
        fft = f
        let hz = rate / Double(n)
        let lo = max(1, Int((100 / hz).rounded(.up)))
        let hi = min(n / 2, Int((4000 / hz).rounded(.down)))
        bins = lo..<max(lo + 1, hi + 1)
        // 4-8 kHz (up to Nyquist): where /s/, /f/ and /θ/ have their energy.
        highBins = bins.upperBound..<max(bins.upperBound, min(n / 2, Int((8000 / hz).rounded(.down))) + 1)
        voicingStart = max(1, Int((400 / hz).rounded(.up)))
        savedSpectrum = .allocate(capacity: 2 * (n / 2 + 1))
        minLag = max(1, Int(rate / 400))
        maxLag = min(n / 2 - 1, Int(rate / 62.5))
        let count = bins.count
        bandSNR = .allocate(capacity: Self.bandCount)
        bandStart = .allocate(capacity: Self.bandCount + 1)
        bandStart[0] = 0
        for b in 1..<Self.bandCount {
            let lowest = bins.lowerBound, edge = Self.bandEdges[b]
            let first = (0..<count).first { Double(lowest + $0) * hz >= edge } ?? count
            bandStart[b] = max(bandStart[b - 1], first)
        }
        bandStart[Self.bandCount] = count
        window = .allocate(capacity: frameLength)
        for i in 0..<frameLength {
            window[i] = Float(0.5 - 0.5 * cos(2 * Double.pi * (Double(i) + 0.5) / Double(frameLength)))
        }
        smoothed = .allocate(capacity: count)
        noise = .allocate(capacity: count)
        previousClean = .allocate(capacity: count)
        pastMin = .allocate(capacity: count)
        subMinima = .allocate(capacity: count * Self.subwindows)
        currentMin = .allocate(capacity: count)
        binPower = .allocate(capacity: count)
        binNoise = .allocate(capacity: count)
        binRatio = .allocate(capacity: count)
        binFactor = .allocate(capacity: count)
        reset()
    }

    deinit {
        for p in [window, smoothed, noise, previousClean, pastMin, subMinima, currentMin, savedSpectrum,
                  bandSNR, binPower, binNoise, binRatio, binFactor] { p.deallocate() }
        bandStart.deallocate()
    }

    func reset() {
        let count = bins.count
        smoothed.update(repeating: 0, count: count)
        noise.update(repeating: 0, count: count)
        previousClean.update(repeating: 0, count: count)
        pastMin.update(repeating: .greatestFiniteMagnitude, count: count)
        subMinima.update(repeating: .greatestFiniteMagnitude, count: count * Self.subwindows)
        currentMin.update(repeating: .greatestFiniteMagnitude, count: count)
        framesInSub = 0
        subIndex = 0
        frames = 0
        highNoise = 0
        bandSNR.update(repeating: 0, count: Self.bandCount)
    }

    /// Measures one frame (`frame` holds frameLength samples, oldest first).
    /// Returns (mean log-likelihood ratio, harmonicity 0...1, frame energy in dBFS, 4-8 kHz
    /// power over its noise: fricatives, which the 100 Hz-4 kHz band hardly sees).
    func measure(_ frame: UnsafePointer<Float>, count: Int) -> (llr: Float, harmonicity: Float, level: Float, high: Float) {
        let input = fft.input, spectrum = fft.output
        var energy: Float = 0
        for i in 0..<count {
            let x = frame[i]
            input[i] = x * window[i]
            energy += x * x
        }
        for i in count..<fft.size { input[i] = 0 }
        fft.transform()
        let level = 10 * log10(max(energy / Float(count), 1e-12))
        // Digital silence (a stream's first blocks, a muted input) says nothing about the
        // room: learning it as the noise would put the estimate at zero, from where it takes
        // a minute to climb, and any sound would be speech until then. It is not measured.
        voicing = 0
        lowShare = 0
        guard level >= VoiceActivityDetector.Tuning.digitalSilenceLevel else {
            bandSNR.update(repeating: 0, count: Self.bandCount)
            return (0, 0, level, 0)
        }
        frames += 1
        let first = frames == 1, learning = frames <= 5, capped = frames > Self.subwindowFrames
        var llrSum: Float = 0
        // Σ log(1 + ξ) as the log of running products, 16 bins at a time (ξ <= ~1e4, so a
        // Double holds 16 factors): 8 logarithms per frame instead of one per bin.
        var product = 1.0
        let lo = bins.lowerBound, count = bins.count
        // Each bin's own arithmetic first, bin by bin with no sums (so it runs four bins to an
        // instruction), then the sums in bin order: the same operations in the same order as
        // one loop, so the same values to the bit.
        binTerms(spectrum + 2 &* lo, count: count, first: first, learning: learning, capped: capped)
        var allAbove: Float = 0, lowAbove: Float = 0
        for band in 0..<Self.bandCount {
            // Per band: its power and noise, which the model reads.
            var bandPower: Float = 0, bandNoise: Float = 0
            for j in bandStart[band]..<bandStart[band + 1] {
                bandPower += binPower[j]
                bandNoise += binNoise[j]
                llrSum += binRatio[j]
                product *= Double(binFactor[j])
                if j & 15 == 15 {
                    llrSum -= Float(log(product))
                    product = 1
                }
            }
            bandSNR[band] = log10(max(bandPower, 1e-12) / max(bandNoise, 1e-12))
            let above = max(bandPower - bandNoise, 0)
            allAbove += above
            if band < Self.lowBands { lowAbove += above }
        }
        lowShare = allAbove > 0 ? lowAbove / allAbove : 0
        llrSum -= Float(log(product))
        framesInSub += 1
        if framesInSub == Self.subwindowFrames {
            // Retire the current subwindow; recompute the minimum of the stored ones.
            let count = bins.count
            (subMinima + subIndex * count).update(from: currentMin, count: count)
            subIndex = (subIndex + 1) % Self.subwindows
            pastMin.update(from: subMinima, count: count)
            for s in 1..<Self.subwindows {
                let row = subMinima + s * count
                for j in 0..<count { pastMin[j] = min(pastMin[j], row[j]) }
            }
            currentMin.update(repeating: .greatestFiniteMagnitude, count: count)
            framesInSub = 0
        }
        var highPower: Float = 0
        for k in highBins { highPower += fft.power(k) }
        var high: Float = 0
        if !highBins.isEmpty {
            // One noise level for the band: falls fast, rises slowly, creeps under speech.
            let hn = highNoise
            highNoise = first ? highPower : highPower < hn ? 0.8 * hn + 0.2 * highPower
                : highPower < 3 * hn ? 0.98 * hn + 0.02 * highPower : hn * 1.002
            high = highPower / max(highNoise, 1e-12)
        }
        let llr = llrSum / Float(bins.count)
        // Harmonicity counts only in proportion to the likelihood ratio (the vad weighs it by
        // min(1, log(1 + llr))): with nothing above the noise, skip its inverse FFT.
        guard llr > 0.01 else { return (llr, 0, level, high) }
        // Harmonicity: autocorrelation of the noise-subtracted power spectrum (inverse FFT).
        for k in 0..<lo { spectrum[2 * k] = 0; spectrum[2 * k + 1] = 0 }
        for k in bins.upperBound..<(fft.size / 2 + 1) { spectrum[2 * k] = 0; spectrum[2 * k + 1] = 0 }
        let young = isYoung
        if young { savedSpectrum.update(from: spectrum, count: 2 * (fft.size / 2 + 1)) }
        let harmonicity = autocorrelationPeak()
        voicing = harmonicity
        if young {
            spectrum.update(from: savedSpectrum, count: 2 * (fft.size / 2 + 1))
            for k in 0..<voicingStart { spectrum[2 * k] = 0; spectrum[2 * k + 1] = 0 }
            voicing = autocorrelationPeak()
        }
        return (llr, harmonicity, level, high)
    }

    /// The normalised autocorrelation peak at pitch lags of the power spectrum in `fft.output`
    /// (inverse FFT; the spectrum is overwritten), 0...1.
    private func autocorrelationPeak() -> Float {
        fft.inverse()
        let input = fft.input
        let r0 = input[0]
        var peak: Float = 0
        if r0 > 0 {
            peak = ag_peak(input + minLag, Int64(maxLag - minLag + 1)) / r0
        }
        return max(0, min(1, peak))
    }
}
