import Foundation

/// A long linear-phase low-pass FIR run by FFT convolution (overlap-save on FFTW), for one
/// channel, streaming, with its delay compensated: output sample n is the filtered signal
/// at input time n, and N input frames give exactly N output frames.
///
/// This is the sharp half of the two-stage down-sampler (soxr's design): it does the
/// narrow transition band at a cost of a few dozen operations per sample whatever the
/// length, leaving the rate change itself to a short polyphase filter. Blocks are cut at
/// fixed stream positions, so the output does not depend on how the input is chunked; it
/// comes in bursts of one hop (`hop` frames), which is why live graphs use the direct
/// polyphase filter instead.
final class FFTLowpass {
    /// The filter's shape and sizes, worked out without planning an FFT (for buffer sizes
    /// at negotiation); ``FFTLowpass/init(_:)`` builds the filter itself.
    struct Design: Sendable {
        let rate: Int
        let passband: Double, stopband: Double, attenuation: Double
        /// Filter length (odd) and its delay, (length - 1) / 2.
        let length: Int
        var delay: Int { (length - 1) / 2 }
        /// Transform size, and new input frames per transform.
        let size: Int
        var hop: Int { size - (length - 1) }

        /// Flat to `passband`, `attenuation` dB from `stopband` on (Hz).
        init(rate: Int, passband: Double, stopband: Double, attenuation: Double) {
            self.rate = rate
            self.passband = passband
            self.stopband = stopband
            self.attenuation = attenuation
            var n = Int(kaiserLength(attenuation: attenuation, transition: (stopband - passband) / Double(rate))
                .rounded(.up)) + 1
            n += 1 - n % 2  // odd: a whole-sample delay
            length = n
            var size = 1024
            while size < 8 * n { size *= 2 }
            self.size = size
        }

        /// Largest output one call can give for `frames` of input (a hop may complete, and
        /// the end flush adds the delay).
        func maxOutput(inputFrames frames: Int) -> Int { frames + 2 * hop + delay }
    }

    let design: Design
    var length: Int { design.length }
    var delay: Int { design.delay }
    var hop: Int { design.hop }
    private let fft: RealFFT
    /// The filter's spectrum, scaled by 1/size (FFTW's inverse is unnormalised).
    private let spectrum: UnsafeMutablePointer<Float>
    /// The transform's input window: length - 1 frames of history, then up to `hop` new.
    private let window: UnsafeMutablePointer<Float>
    private var filled = 0          // new frames in `window` after the history
    private var received = 0        // input frames so far
    private var emitted = 0         // aligned output frames so far
    private var skip = 0            // convolution outputs still to discard (the delay)
    private var flushed = false

    /// Builds the filter (plans its FFT). Not real-time.
    init?(_ design: Design) {
        self.design = design
        let n = design.length, size = design.size, delay = design.delay
        guard let f = RealFFT(size: size) else { return nil }
        fft = f
        spectrum = .allocate(capacity: 2 * (size / 2 + 1))
        window = .allocate(capacity: size)
        window.initialize(repeating: 0, count: size)
        // Kaiser-windowed sinc, cut-off in the middle of the transition band, unity DC gain.
        let fc = (design.passband + design.stopband) / 2 / Double(design.rate)
        let beta = kaiserBeta(attenuation: design.attenuation)
        let i0 = besselI0(beta)
        let h = (0..<n).map { j in
            kaiserSinc(Double(j - delay), halfWidth: Double(delay + 1), cutoff: fc, beta: beta, i0beta: i0)
        }
        let sum = h.reduce(0, +)
        f.input.update(repeating: 0, count: size)
        for j in 0..<n { f.input[j] = Float(h[j] / sum / Double(size)) }
        f.transform()
        spectrum.update(from: f.output, count: 2 * (size / 2 + 1))
        reset()
    }

    deinit {
        spectrum.deallocate()
        window.deallocate()
    }

    /// Back to time 0 (silence before the first frame).
    func reset() {
        window.update(repeating: 0, count: fft.size)
        filled = 0
        received = 0
        emitted = 0
        skip = delay
        flushed = false
    }

    /// Largest output one call can give for `frames` of input.
    func maxOutput(inputFrames frames: Int) -> Int { design.maxOutput(inputFrames: frames) }

    /// Consumes `count` frames; writes the aligned output produced so far to `output`
    /// (capacity `maxOutput(inputFrames: count)`) and returns how many. With `ending`, the
    /// rest is flushed (the future after the last frame is silence). Real-time safe.
    func process(_ input: UnsafePointer<Float>, count: Int, ending: Bool, output: UnsafeMutablePointer<Float>) -> Int {
        var written = 0
        var consumed = 0
        while consumed < count {
            let n = min(hop - filled, count - consumed)
            (window + (length - 1) + filled).update(from: input + consumed, count: n)
            filled += n
            consumed += n
            received += n
            if filled == hop { written += runBlock(valid: hop, into: output + written) }
        }
        if ending && !flushed {
            flushed = true
            // Zeros after the end until every aligned output up to `received` exists.
            while emitted < received {
                (window + (length - 1) + filled).update(repeating: 0, count: hop - filled)
                filled = hop
                written += runBlock(valid: hop, into: output + written)
            }
        }
        return written
    }

    /// Filters the window; passes on the valid outputs (after the delay, up to `received`).
    private func runBlock(valid: Int, into output: UnsafeMutablePointer<Float>) -> Int {
        let size = fft.size
        fft.input.update(from: window, count: size)
        fft.transform()
        let bins = size / 2 + 1
        let s = fft.output
        for k in 0..<bins {
            let re = s[2 * k], im = s[2 * k + 1]
            let hr = spectrum[2 * k], hi = spectrum[2 * k + 1]
            s[2 * k] = re * hr - im * hi
            s[2 * k + 1] = re * hi + im * hr
        }
        fft.inverse()
        // Convolution outputs for this block sit at fft.input[length - 1 ..< size].
        let start = min(skip, valid)
        skip -= start
        let wanted = min(valid - start, received - emitted)  // never past the input's end
        let n = max(0, wanted)
        output.update(from: fft.input + (length - 1) + start, count: n)
        emitted += n
        // Keep the last length - 1 frames as the next block's history.
        window.update(from: window + hop, count: length - 1)
        filled = 0
        return n
    }
}
