import AudioGraphCore
import CDSPKernels
import Foundation

/// A long linear-phase low-pass FIR run by FFT convolution (overlap-save on FFTW), for one
/// channel, streaming, with its delay compensated, that may also change the rate by a whole
/// factor on the way: output sample n is the filtered signal at output time n.
///
/// This is the sharp half of the two-stage resampler (soxr's design): it does the narrow
/// transition band at a cost of a few dozen operations per sample whatever the length. The
/// filter lives at the higher rate. Down-sampling by `down`, the product spectrum's bins
/// up to the output's Nyquist go straight into an inverse transform `down` times shorter
/// (the folded-over rest lies in the stopband), so only kept samples are computed.
/// Up-sampling by `up`, the input's transform is `up` times shorter than the output's: its
/// bins are those of the input with zeros between its samples, and above the input's Nyquist
/// the filter leaves nothing. N input frames give round(N · up / down) output frames. Blocks
/// are cut at fixed stream positions, so the output does not depend on how the input is
/// chunked. Blocks go through the transforms two at a time, the second as the imaginary
/// part of the first (one complex FFT runs faster than two real ones); what a pair computes
/// is given out over the following calls, at most one hop more than their input's share
/// each, so the buffers after it stay small. Output lags the input by up to two hops, which
/// is why live graphs use the direct polyphase filter instead.
final class FFTLowpass {
    /// The filter's shape and sizes, worked out without planning an FFT (for buffer sizes
    /// at negotiation); ``FFTLowpass/init(_:)`` builds the filter itself.
    struct Design: Sendable {
        /// The filter's rate: the higher of input and output.
        let rate: Int
        let passband: Double, stopband: Double, attenuation: Double
        /// Whole rate factors; one of them is 1.
        let up: Int, down: Int
        /// Filter length at `rate` (odd; its delay a multiple of `down`, length - 1 of `up`).
        let length: Int
        var delay: Int { (length - 1) / 2 }
        /// Transform size at `rate`, and new frames at `rate` per transform.
        let size: Int
        var hop: Int { size - (length - 1) }
        /// The same at the input and the output rate.
        var inputSize: Int { size / up }
        var inputHistory: Int { (length - 1) / up }
        var inputHop: Int { hop / up }
        var outputSize: Int { size / down }
        var outputHistory: Int { (length - 1) / down }
        var outputHop: Int { hop / down }

        /// Flat to `passband`, `attenuation` dB from `stopband` on (Hz, at `rate`).
        init(rate: Int, passband: Double, stopband: Double, attenuation: Double, up: Int = 1, down: Int = 1) {
            precondition(up >= 1 && down >= 1 && (up == 1 || down == 1))
            self.rate = rate
            self.passband = passband
            self.stopband = stopband
            self.attenuation = attenuation
            self.up = up
            self.down = down
            let n = Int(kaiserLength(attenuation: attenuation, transition: (stopband - passband) / Double(rate))
                .rounded(.up)) + 1
            // Odd, and whole blocks at both rates: the kept samples' phase never drifts.
            let step = 2 * up * down
            length = (n - 1 + step - 1) / step * step + 1
            // At least eight filter lengths (a hop of seven eighths), and five times a power of
            // two: FFTW's estimated plans run those sizes faster per sample than the powers of
            // two around them (the README's resampler rows).
            var size = 640 * up * down
            while size < 8 * length { size *= 2 }
            self.size = size
        }

        /// Output frames for `frames` input frames in all (round(frames · up / down)).
        func outputFrames(inputFrames frames: Int) -> Int { resampledLength(frames, up: up, down: down) }

        /// Largest output one call gives for `frames` of input: their share and one hop
        /// more, so what a pair of blocks computes at once comes out over the next calls.
        func maxOutput(inputFrames frames: Int) -> Int {
            frames * up / down + outputHop + 2
        }

        /// Outputs computed and not yet given out, at most (see `FFTLowpass.process`).
        var readyCapacity: Int {
            6 * outputHop + delay / down + 64
        }
    }

    let design: Design
    /// The forward transform of a pair of windows: the first in the real parts, the one a
    /// hop later in the imaginary parts (the filter is real, so the two never mix).
    private let forward: ComplexFFT
    private let backward: ComplexFFT
    /// `inputHistory` frames of history, then up to two hops of new frames.
    private let window: UnsafeMutablePointer<Float>
    /// The filter's spectrum up to the lower rate's Nyquist, scaled by up / size (FFTW's
    /// inverse is unnormalised; zeros between samples keep 1/up of their energy).
    private let spectrum: UnsafeMutablePointer<Float>
    /// Bins below the lower rate's Nyquist (that bin itself lies in the stopband: dropped).
    private let bins: Int
    private var filled = 0          // new frames in `window` after the history
    private var received = 0        // input frames so far
    private var emitted = 0         // aligned output frames computed so far
    /// Computed outputs not given out yet.
    private let ready: FrameRing
    private var skip = 0            // output frames still to discard (the delay)
    private var flushed = false

    /// The filter's spectrum for `design`, as ``init(_:spectrum:)`` takes it: worked out once
    /// per design and shared by every channel. Not real-time.
    static func spectrum(_ design: Design) -> [Float] {
        let n = design.length, size = design.size, delay = design.delay
        // Kaiser-windowed sinc, cut-off in the middle of the transition band, unity DC gain.
        let fc = (design.passband + design.stopband) / 2 / Double(design.rate)
        let beta = kaiserBeta(attenuation: design.attenuation)
        let i0 = besselI0(beta)
        let h = (0..<n).map { j in
            kaiserSinc(Double(j - delay), halfWidth: Double(delay + 1), cutoff: fc, beta: beta, i0beta: i0)
        }
        let sum = h.reduce(0, +)
        let bins = min(design.inputSize, design.outputSize) / 2
        return [Float](unsafeUninitializedCapacity: 2 * bins) { buffer, count in
            linearPhaseSpectrum(h, scale: Double(design.up) / Double(size) / sum, size: size, bins: bins,
                                into: buffer.baseAddress!)
            count = 2 * bins
        }
    }

    /// One channel's filter (plans its FFTs) with `spectrum` from ``spectrum(_:)`` for the
    /// same design. Not real-time.
    init?(_ design: Design, spectrum shared: [Float]) {
        self.design = design
        guard let f = ComplexFFT(size: design.inputSize, inverse: false),
              let b = ComplexFFT(size: design.outputSize, inverse: true)
        else { return nil }
        forward = f
        backward = b
        bins = min(design.inputSize, design.outputSize) / 2
        precondition(shared.count == 2 * bins, "a spectrum made for another design")
        spectrum = .allocate(capacity: 2 * bins)
        spectrum.initialize(from: shared, count: 2 * bins)
        window = .allocate(capacity: design.inputHistory + 2 * design.inputHop)
        ready = FrameRing(channels: 1, capacity: design.readyCapacity)
        reset()
    }

    deinit {
        spectrum.deallocate()
        window.deallocate()
    }

    /// Back to time 0 (silence before the first frame).
    func reset() {
        window.update(repeating: 0, count: design.inputHistory + 2 * design.inputHop)
        filled = 0
        received = 0
        emitted = 0
        ready.discard(frames: ready.available)
        skip = design.delay / design.down
        flushed = false
    }

    /// Largest output one call can give for `frames` of input.
    func maxOutput(inputFrames frames: Int) -> Int { design.maxOutput(inputFrames: frames) }

    /// Whether the input has ended and all its output has been given out.
    var isFinished: Bool { flushed && ready.available == 0 }

    /// Consumes `count` frames; writes aligned output to `output` (capacity
    /// `maxOutput(inputFrames: count)`) and returns how many. With `ending`, the rest is
    /// computed (the future after the last frame is silence); it may take further calls,
    /// with no input, to give it all out (0 once done). Real-time safe.
    ///
    /// Why `ready` never overflows: between calls, what is computed or owed for input taken
    /// (`ready.available + filled · up / down`) stays within two hops, since a call that leaves
    /// outputs waiting has given out one hop more than its input's share. A pair adds two
    /// hops, the end at most two more and the delay.
    func process(_ input: UnsafePointer<Float>, count: Int, ending: Bool, output: UnsafeMutablePointer<Float>) -> Int {
        let pair = 2 * design.inputHop, history = design.inputHistory
        let capacity = design.maxOutput(inputFrames: count)
        var written = ready.read(interleaved: output, frames: capacity)
        var consumed = 0
        while consumed < count {
            let n = min(pair - filled, count - consumed)
            (window + history + filled).update(from: input + consumed, count: n)
            filled += n
            consumed += n
            received += n
            if filled == pair {
                runPair(limit: received * design.up / design.down)
                written += ready.read(interleaved: output + written, frames: capacity - written)
            }
        }
        if ending && !flushed {
            flushed = true
            // Zeros after the end until every output the input is owed exists.
            let total = design.outputFrames(inputFrames: received)
            while emitted < total {
                (window + history + filled).update(repeating: 0, count: pair - filled)
                filled = pair
                runPair(limit: total)
                written += ready.read(interleaved: output + written, frames: capacity - written)
            }
        }
        return written
    }

    /// Filters the two windows that `window` holds (its first `inputSize` frames, and the
    /// same a hop later) in one complex transform; adds the outputs after the delay to
    /// `ready`, first block then second, up to `limit` in all.
    private func runPair(limit: Int) {
        let inSize = design.inputSize, outSize = design.outputSize
        Self.interleave(UnsafePointer(window), UnsafePointer(window + design.inputHop), count: inSize, into: forward.input)
        forward.execute()
        // The product spectrum at the output's size: positive frequencies from the bottom,
        // negative ones from the top. A real filter's response at -f is the conjugate of +f.
        // Down-sampling folds nothing back (the rest is stopband); up-sampling has nothing
        // above the input's Nyquist (the zero-stuffed input's images are filtered out).
        let s = forward.output, p = backward.input
        ag_complex_multiply(s, spectrum, p, Int64(bins))
        ag_complex_multiply_conjugate_reversed(s + 2 * inSize, spectrum, p + 2 * outSize, Int64(bins))
        (Self.complex(p) + bins).update(repeating: .zero, count: outSize - 2 * bins + 1)
        backward.execute()
        // Outputs sit at outputHistory ..< outputSize: the first block's in the real parts,
        // the second's in the imaginary parts. They go to `ready` through the inverse's input,
        // free once it has run.
        let t = UnsafePointer(Self.complex(backward.output) + design.outputHistory)
        let output = backward.input
        var written = 0
        for part in 0..<2 {
            let valid = design.outputHop
            let start = min(skip, valid)
            skip -= start
            let n = max(0, min(valid - start, limit - emitted))
            let from = t + start, to = output + written
            if part == 0 {
                for j in 0..<n { to[j] = from[j].x }
            } else {
                for j in 0..<n { to[j] = from[j].y }
            }
            emitted += n
            written += n
        }
        let kept = ready.write(interleaved: output, frames: written)
        assert(kept == written, "ready overflowed: see process(_:count:ending:output:)")
        // Keep the last frames as the next pair's history.
        window.update(from: window + 2 * design.inputHop, count: design.inputHistory)
        filled = 0
    }

    @inline(__always)
    private static func complex(_ p: UnsafeMutablePointer<Float>) -> UnsafeMutablePointer<SIMD2<Float>> {
        UnsafeMutableRawPointer(p).assumingMemoryBound(to: SIMD2<Float>.self)
    }

    /// `out` = a[0], b[0], a[1], b[1], ... for `count` (a multiple of 4) pairs, four at a time.
    @inline(__always)
    private static func interleave(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int,
                                   into out: UnsafeMutablePointer<Float>) {
        let to = UnsafeMutableRawPointer(out)
        var j = 0
        while j < count {
            let x = UnsafeRawPointer(a + j).loadUnaligned(as: SIMD4<Float>.self)
            let y = UnsafeRawPointer(b + j).loadUnaligned(as: SIMD4<Float>.self)
            to.storeBytes(of: SIMD4(x[0], y[0], x[1], y[1]), toByteOffset: 8 * j, as: SIMD4<Float>.self)
            to.storeBytes(of: SIMD4(x[2], y[2], x[3], y[3]), toByteOffset: 8 * j + 16, as: SIMD4<Float>.self)
            j &+= 4
        }
    }
}
