/// Resampling in two stages, as soxr does. Down-sampling: an ``FFTLowpass`` at the input
/// rate does the sharp band limit (flat to the preset's passband, full rejection from the
/// output's Nyquist), then a short polyphase filter changes the rate. The second filter only
/// has to reject the first image of an already band-limited signal, so its transition band
/// is wide and it needs a few taps instead of hundreds; for an integer ratio it is a plain
/// decimation. Up-sampling by a whole factor: the input with zeros between its samples, then
/// the ``FFTLowpass`` at the output rate removes the images from the input's Nyquist on.
/// Throughput for file input; see ``Resampler`` for when it is used.
final class TwoStageResampler: ChannelResampler {
    private let lowpass: FFTLowpass
    private let second: PolyphaseResampler?  // nil: integer decimation by `down`
    private let down: Int
    /// Up-sampling factor (1: down-sampling).
    private let up: Int
    private let scratch: UnsafeMutablePointer<Float>
    // Integer decimation state: output k is aligned sample k · down.
    private var seen = 0         // aligned samples seen
    private var produced = 0
    private var held: Float?     // sample `produced · down`, seen but not yet sure to be kept

    /// The two stages for one rate pair, designed once for every channel.
    struct Design: Sendable {
        let lowpass: FFTLowpass.Design
        /// nil: integer decimation by `down`.
        let second: PolyphaseFilter?
        let down: Int
        /// Whole up-sampling factor (zeros stuffed before the low-pass), or 1.
        var up = 1

        /// Largest output for an input block of `frames`.
        func maxOutput(inputFrames frames: Int) -> Int {
            if up > 1 { return lowpass.maxOutput(inputFrames: frames * up) }
            let mid = lowpass.maxOutput(inputFrames: frames)
            if let second { return PolyphaseResampler.maxOutput(filter: second, inputFrames: mid) }
            return mid / down + 2
        }
    }

    /// The stages for `inputRate` → `outputRate` (down-sampling) at `quality`, or nil when
    /// two stages would not be cheaper than one.
    static func design(inputRate: Int, outputRate: Int, quality: ResamplerQuality) -> Design? {
        if inputRate < outputRate {
            // Whole factors only; other up-sampling ratios stay with the direct filter.
            guard outputRate % inputRate == 0 else { return nil }
            let edge = Double(inputRate) / 2
            let lowpass = FFTLowpass.Design(rate: outputRate, passband: quality.passband * edge,
                                            stopband: quality.stopband * edge, attenuation: quality.attenuation)
            return Design(lowpass: lowpass, second: nil, down: 1, up: outputRate / inputRate)
        }
        guard inputRate > outputRate else { return nil }
        let edge = Double(outputRate) / 2
        let pass = quality.passband * edge
        let g = gcd(inputRate, outputRate)
        let up = outputRate / g, down = inputRate / g
        var second: PolyphaseFilter?
        if up > 1 {
            // Images of the band-limited signal start at inputRate - edge.
            let f = PolyphaseFilter(inputRate: inputRate, outputRate: outputRate, passband: pass,
                                    stopband: Double(inputRate) - edge, attenuation: quality.attenuation)
            let direct = PolyphaseFilter(inputRate: inputRate, outputRate: outputRate, quality: quality)
            guard f.taps * 4 <= direct.taps else { return nil }
            second = f
        }
        let lowpass = FFTLowpass.Design(rate: inputRate, passband: pass, stopband: quality.stopband * edge,
                                        attenuation: quality.attenuation)
        return Design(lowpass: lowpass, second: second, down: down)
    }

    /// One channel's stages (plans its FFT); nil if FFTW cannot plan. Not real-time.
    init?(_ design: Design, maxInputFrames: Int) {
        guard let lowpass = FFTLowpass(design.lowpass) else { return nil }
        self.lowpass = lowpass
        down = design.down
        up = design.up
        let mid = design.lowpass.maxOutput(inputFrames: maxInputFrames)
        scratch = .allocate(capacity: max(mid, maxInputFrames * up))
        second = design.second.map { PolyphaseResampler(filter: $0, maxInputFrames: mid) }
    }

    deinit { scratch.deallocate() }

    func reset() {
        lowpass.reset()
        second?.reset()
        seen = 0
        produced = 0
        held = nil
    }

    func process(_ input: UnsafePointer<Float>, count: Int, ending: Bool,
                 output: UnsafeMutablePointer<Float>, maxOut: Int) -> Int {
        if up > 1 {
            // Each sample, times the factor (the zeros take that share of its energy), then zeros.
            let gain = Float(up)
            var j = 0
            for i in 0..<count {
                scratch[j] = input[i] * gain
                for z in 1..<up { scratch[j + z] = 0 }
                j += up
            }
            return lowpass.process(scratch, count: count * up, ending: ending, output: output)
        }
        let n = lowpass.process(input, count: count, ending: ending, output: scratch)
        if let second {
            return second.process(scratch, count: n, ending: ending, output: output, maxOut: maxOut)
        }
        // Integer decimation. A picked sample is kept once `down` more have arrived (so the
        // total can still come out as round(N / down) at the end).
        var written = 0
        let base = seen
        seen += n
        // A sample picked from an earlier block, now sure to be kept.
        if let v = held, maxOut > 0, produced * down + down <= seen {
            output[0] = v
            written = 1
            produced += 1
            held = nil
        }
        // Outputs k with (k + 1) · down <= seen, straight from this block.
        if held == nil {
            let last = min(seen / down - 1, produced + (maxOut - written) - 1)
            if last >= produced {
                var src = scratch + (produced * down - base)
                for _ in produced...last {
                    output[written] = src.pointee
                    written += 1
                    src += down
                }
                produced = last + 1
            }
            if produced * down < seen { held = scratch[produced * down - base] }
        }
        if ending, written < maxOut, let v = held, produced < (seen + down / 2) / down {
            output[written] = v
            written += 1
            produced += 1
            held = nil
        }
        return written
    }
}
