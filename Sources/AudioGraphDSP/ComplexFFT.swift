import CFFTW
import Glibc

/// A complex FFT of one fixed size and direction on FFTW, planned once, out of place.
///
/// Two real signals travel through one complex transform as its real and imaginary parts
/// (``FFTLowpass`` filters two blocks at once this way): FFTW runs a complex transform of
/// n points faster than two real ones of n. Plans are made at set-up under ``RealFFT``'s
/// planner lock; `execute` is real-time safe.
final class ComplexFFT {
    /// Transform length in complex points.
    let size: Int
    /// `size` complex points as (re, im) pairs; FFTW may overwrite them when it executes.
    let input: UnsafeMutablePointer<Float>
    /// The transform, `size` (re, im) pairs (unnormalised either way).
    let output: UnsafeMutablePointer<Float>
    private let plan: fftwf_plan

    /// Plans a forward (e^-i) or inverse (e^+i) transform of `size` points. Not real-time.
    init?(size: Int, inverse: Bool) {
        let made: (fftwf_plan, UnsafeMutableRawPointer, UnsafeMutableRawPointer)? = RealFFT.planner.withLock {
            guard size >= 2,
                  let i = fftwf_malloc(MemoryLayout<Float>.stride * 2 * size),
                  let o = fftwf_malloc(MemoryLayout<Float>.stride * 2 * size)
            else { return nil }
            let ci = i.bindMemory(to: fftwf_complex.self, capacity: size)
            let co = o.bindMemory(to: fftwf_complex.self, capacity: size)
            guard let p = fftwf_plan_dft_1d(Int32(size), ci, co, inverse ? FFTW_BACKWARD : FFTW_FORWARD,
                                            FFTPlans.flags("\(inverse ? "c2c-inverse" : "c2c") \(size)"))
            else {
                fftwf_free(i)
                fftwf_free(o)
                return nil
            }
            // After planning: a measured plan is timed on these very buffers.
            memset(i, 0, MemoryLayout<Float>.stride * 2 * size)
            memset(o, 0, MemoryLayout<Float>.stride * 2 * size)
            return (p, i, o)
        }
        guard let (p, i, o) = made else { return nil }
        self.size = size
        plan = p
        input = i.bindMemory(to: Float.self, capacity: 2 * size)
        output = o.bindMemory(to: Float.self, capacity: 2 * size)
    }

    deinit {
        RealFFT.planner.withLock { fftwf_destroy_plan(plan) }
        fftwf_free(input)
        fftwf_free(output)
    }

    /// Transforms `input` into `output`. Real-time safe.
    @inline(__always)
    func execute() { fftwf_execute(plan) }
}
