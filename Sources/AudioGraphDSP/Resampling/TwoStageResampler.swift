/// Resampling in two stages, as soxr does. Down-sampling: an ``FFTLowpass`` at the input
/// rate does the sharp band limit (flat to the preset's passband, full rejection from the
/// output's Nyquist), then a short polyphase filter changes the rate. The second filter only
/// has to reject the first image of an already band-limited signal, so its transition band
/// is wide and it needs a few taps instead of hundreds. For a whole ratio there is no second
/// stage: the low-pass computes only the kept samples (down-sampling), or filters the input
/// at the output rate as if zeros stood between its samples (up-sampling).
/// Throughput for file input; see ``Resampler`` for when it is used.
final class TwoStageResampler: ChannelResampler {
    private let lowpass: FFTLowpass
    private let second: PolyphaseResampler?  // nil: the low-pass changes the rate itself
    private let scratch: UnsafeMutablePointer<Float>?
    private let inputRate: Int, outputRate: Int
    private var received = 0

    /// The two stages for one rate pair, designed once for every channel.
    struct Design: Sendable {
        let lowpass: FFTLowpass.Design
        /// nil: the low-pass changes the rate by a whole factor.
        let second: PolyphaseFilter.Shape?
        let inputRate: Int, outputRate: Int

        /// Largest output for an input block of `frames`.
        func maxOutput(inputFrames frames: Int) -> Int {
            let mid = lowpass.maxOutput(inputFrames: frames)
            if let second { return PolyphaseResampler.maxOutput(filter: second, inputFrames: mid) }
            return mid
        }
    }

    /// The stages for `inputRate` → `outputRate` at `quality`, or nil when two stages would
    /// not be cheaper than one.
    static func design(inputRate: Int, outputRate: Int, quality: ResamplerQuality) -> Design? {
        if inputRate < outputRate {
            // Whole factors only; other up-sampling ratios stay with the direct filter.
            guard outputRate % inputRate == 0 else { return nil }
            let edge = Double(inputRate) / 2
            let lowpass = FFTLowpass.Design(rate: outputRate, passband: quality.passband * edge,
                                            stopband: quality.stopband * edge, attenuation: quality.attenuation,
                                            up: outputRate / inputRate)
            return Design(lowpass: lowpass, second: nil, inputRate: inputRate, outputRate: outputRate)
        }
        guard inputRate > outputRate else { return nil }
        let edge = Double(outputRate) / 2
        let pass = quality.passband * edge
        if inputRate % outputRate == 0 {
            let lowpass = FFTLowpass.Design(rate: inputRate, passband: pass, stopband: quality.stopband * edge,
                                            attenuation: quality.attenuation, down: inputRate / outputRate)
            return Design(lowpass: lowpass, second: nil, inputRate: inputRate, outputRate: outputRate)
        }
        // The low-pass keeps every `skip`-th sample when the rate between stays above the
        // output's: images of the band-limited signal start at that rate - edge.
        let skip = (2...max(2, inputRate / outputRate)).last { inputRate % $0 == 0 && inputRate / $0 > outputRate } ?? 1
        let mid = inputRate / skip
        let second = PolyphaseFilter.Shape(inputRate: mid, outputRate: outputRate, passband: pass,
                                           stopband: Double(mid) - edge, attenuation: quality.attenuation)
        let direct = PolyphaseFilter.Shape(inputRate: inputRate, outputRate: outputRate, quality: quality)
        guard second.taps * 4 <= direct.taps else { return nil }
        let lowpass = FFTLowpass.Design(rate: inputRate, passband: pass, stopband: quality.stopband * edge,
                                        attenuation: quality.attenuation, down: skip)
        return Design(lowpass: lowpass, second: second, inputRate: inputRate, outputRate: outputRate)
    }

    /// What every channel's stages share, worked out once per design (as the direct method
    /// shares one ``PolyphaseFilter``): the low-pass's spectrum and the second stage's
    /// coefficient tables. Not real-time.
    struct Filters {
        let spectrum: [Float]
        let second: PolyphaseFilter?

        init(_ design: Design) {
            spectrum = FFTLowpass.spectrum(design.lowpass)
            second = design.second.map { PolyphaseFilter($0) }
        }
    }

    /// One channel's stages over `filters` (made for `design`); plans its FFTs; nil if FFTW
    /// cannot plan. Not real-time.
    init?(_ design: Design, filters: Filters, maxInputFrames: Int) {
        guard let lowpass = FFTLowpass(design.lowpass, spectrum: filters.spectrum) else { return nil }
        self.lowpass = lowpass
        let mid = design.lowpass.maxOutput(inputFrames: maxInputFrames)
        second = filters.second.map { PolyphaseResampler(filter: $0, maxInputFrames: mid) }
        scratch = design.second == nil ? nil : .allocate(capacity: mid)
        inputRate = design.inputRate
        outputRate = design.outputRate
    }

    deinit { scratch?.deallocate() }

    func reset() {
        lowpass.reset()
        second?.reset()
        received = 0
    }

    func process(_ input: UnsafePointer<Float>, count: Int, ending: Bool,
                 output: UnsafeMutablePointer<Float>, maxOut: Int) -> Int {
        guard let second, let scratch else { return lowpass.process(input, count: count, ending: ending, output: output) }
        received += count
        let n = lowpass.process(input, count: count, ending: ending, output: scratch)
        // The low-pass rounded its own length: the whole conversion's is round(N · out / in).
        // Its output may go on for a few calls after the input's end; then this stage ends.
        let total = resampledLength(received, up: outputRate, down: inputRate)
        return second.process(scratch, count: n, ending: ending && lowpass.isFinished, output: output, maxOut: maxOut,
                              total: total)
    }
}
