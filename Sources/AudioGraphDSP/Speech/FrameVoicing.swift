import Foundation

/// How voiced one frame of sound is: the peak of its normalised autocorrelation at pitch lags
/// (70-400 Hz), 0...1, with the frame's level. A voice's periodic sound peaks near 1 at its
/// pitch period; noise, clatter, breath and whispers do not. Unlike the vad's harmonicity,
/// nothing is weighted by the room's noise: it is the plain sound's periodicity.
///
/// The frame is Hann-windowed and zero-padded to twice its length (no circular wrap), and each
/// lag's correlation is divided by the window's own, so a steady period reads the same at
/// every lag. Allocation-free per frame: the FFT and tables are made at `init`.
package final class FrameVoicing {
    /// Frame length in samples.
    package let length: Int
    private let fft: RealFFT
    private let taper: UnsafeMutablePointer<Float>
    /// The autocorrelation of the taper itself, to undo its fall-off with lag.
    private let taperCorrelation: UnsafeMutablePointer<Float>
    private let lags: ClosedRange<Int>

    /// An analyser of `length`-sample frames at `rate` Hz; nil when FFTW cannot plan.
    package init?(length: Int, rate: Double) {
        var n = 1
        while n < 2 * length { n *= 2 }
        guard length >= 2, let fft = RealFFT(size: n) else { return nil }
        self.fft = fft
        self.length = length
        taper = .allocate(capacity: length)
        for i in 0..<length { taper[i] = Float(0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(length - 1))) }
        taperCorrelation = .allocate(capacity: length)
        for lag in 0..<length {
            var c: Float = 0
            for i in 0..<(length - lag) { c += taper[i] * taper[i + lag] }
            taperCorrelation[lag] = c
        }
        let lo = max(1, Int((rate / 400).rounded())), hi = min(length - 1, Int(rate / 70))
        lags = lo...max(lo, hi)
    }

    deinit {
        taper.deallocate()
        taperCorrelation.deallocate()
    }

    /// Voicing (0...1) and level (dB of the mean square, full scale 1) of `length` samples
    /// handed over by `sample(i)`, oldest first.
    @inline(__always)
    package func measure(_ sample: (Int) -> Float) -> (voicing: Float, level: Float) {
        let n = length
        var mean: Float = 0
        for i in 0..<n { mean += sample(i) }
        mean /= Float(n)
        var energy: Float = 0
        let input = fft.input
        for i in 0..<n {
            let v = sample(i) - mean
            energy += v * v
            input[i] = v * taper[i]
        }
        for i in n..<fft.size { input[i] = 0 }
        fft.transform()
        // The power spectrum, whose inverse transform is the autocorrelation.
        let out = fft.output
        for b in 0...(fft.size / 2) {
            out[2 * b] = fft.power(b)
            out[2 * b + 1] = 0
        }
        fft.inverse()
        let r0 = input[0] / taperCorrelation[0]
        var peak: Float = 0
        if r0 > 0 {
            for lag in lags { peak = max(peak, input[lag] / taperCorrelation[lag] / r0) }
        }
        return (max(0, min(1, peak)), 10 * log10(max(energy / Float(n), 1e-12)))
    }
}
