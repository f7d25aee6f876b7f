import AudioGraphCore
import Foundation
import CFFTW

/// A forward real FFT of one fixed size on FFTW, planned once.
///
/// Plans are made at set-up (FFTW planning is not thread-safe and not real-time);
/// `transform` only executes the plan on buffers allocated by `fftwf_malloc`, which is
/// real-time safe.
public final class RealFFT {
    /// Transform length in samples.
    public let size: Int
    /// Time-domain input; fill `size` samples before `transform()`.
    public let input: UnsafeMutablePointer<Float>
    /// Spectrum: `size / 2 + 1` complex bins, as (re, im) pairs.
    public let output: UnsafeMutablePointer<Float>
    private let plan: fftwf_plan
    private let inversePlan: fftwf_plan

    /// FFTW's planner is not thread-safe, and engines may be prepared on several threads
    /// at once (tests, embedders): every plan is made and destroyed under this lock.
    static let planner = NSLock()

    /// Plans a transform of `size` samples. Not real-time.
    public init?(size: Int) {
        // A plain NSLock: Locked<()> guards no storage, and ThreadSanitizer reported
        // its zero-sized inout access as a race between two engines preparing at once.
        let made: (fftwf_plan, fftwf_plan, UnsafeMutableRawPointer, UnsafeMutableRawPointer)? = Self.planner.withLock {
            Self.plan(size: size)
        }
        guard let (p, q, i, o) = made else { return nil }
        input = i.bindMemory(to: Float.self, capacity: size)
        output = o.bindMemory(to: Float.self, capacity: 2 * (size / 2 + 1))
        self.size = size
        plan = p
        inversePlan = q
    }

    private static func plan(size: Int) -> (fftwf_plan, fftwf_plan, UnsafeMutableRawPointer, UnsafeMutableRawPointer)? {
        guard size >= 2,
              let i = fftwf_malloc(MemoryLayout<Float>.stride * size),
              let o = fftwf_malloc(MemoryLayout<Float>.stride * 2 * (size / 2 + 1))
        else { return nil }
        let input = i.bindMemory(to: Float.self, capacity: size)
        let complexOut = o.bindMemory(to: fftwf_complex.self, capacity: size / 2 + 1)
        guard let p = fftwf_plan_dft_r2c_1d(Int32(size), input, complexOut, FFTPlans.flags("r2c \(size)")),
              let q = fftwf_plan_dft_c2r_1d(Int32(size), complexOut, input, FFTPlans.flags("c2r \(size)"))
        else {
            fftwf_free(i)
            fftwf_free(o)
            return nil
        }
        // After planning: a measured plan is timed on these very buffers.
        memset(i, 0, MemoryLayout<Float>.stride * size)
        memset(o, 0, MemoryLayout<Float>.stride * 2 * (size / 2 + 1))
        return (p, q, i, o)
    }

    deinit {
        Self.planner.withLock {
            fftwf_destroy_plan(plan)
            fftwf_destroy_plan(inversePlan)
        }
        fftwf_free(input)
        fftwf_free(output)
    }

    /// Transforms `input` into `output`. Real-time safe.
    @inline(__always)
    public func transform() { fftwf_execute(plan) }

    /// Transforms the spectrum in `output` back into `input` (unnormalised: × size; the
    /// spectrum is overwritten). Real-time safe.
    @inline(__always)
    public func inverse() { fftwf_execute(inversePlan) }

    /// Squared magnitude of bin `k` (0...size/2).
    @inline(__always)
    public func power(_ k: Int) -> Float {
        let re = output[2 * k], im = output[2 * k + 1]
        return re * re + im * im
    }
}
