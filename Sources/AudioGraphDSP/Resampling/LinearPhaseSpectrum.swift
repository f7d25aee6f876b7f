import Foundation

/// The first `bins` bins of the `size`-point DFT of a symmetric (linear-phase) filter,
/// `taps[j] · scale` at j = 0 ..< taps.count (an odd count, zero-padded), as interleaved
/// (re, im) floats, for ``FFTLowpass`` to multiply by. Summed in double precision from the
/// filter's symmetry, each bin is rounded to float relative to its own size (a float FFT's
/// rounding is relative to the largest bin, and lands in the stopband bins near -140 dB),
/// and no transform has to be planned for it (planning one took longer than a short file's
/// whole conversion).
///
/// With c = (taps.count - 1) / 2 the centre tap, each bin is a real amplitude,
/// taps[c] + 2 Σ taps[c + m] cos(2π m k / size), times the delay's phase e^(-2πi c k / size).
/// Costs bins · c multiply-adds (a few tenths of a millisecond for the resampler's filters).
func linearPhaseSpectrum(_ taps: [Double], scale: Double, size: Int, bins: Int,
                         into spectrum: UnsafeMutablePointer<Float>) {
    precondition(taps.count % 2 == 1 && size % 4 == 0 && bins <= size / 2 + 1)
    let c = (taps.count - 1) / 2
    // cos(2π i / size) for every i; sin(2π i / size) is cos at i - size / 4.
    let cosine = (0..<size).map { cos(2 * Double.pi * Double($0) / Double(size)) }
    taps.withUnsafeBufferPointer { h in
        cosine.withUnsafeBufferPointer { table in
            for k in 0..<bins {
                var amplitude = 0.0, index = 0
                for m in stride(from: 1, through: c, by: 1) {
                    index += k
                    if index >= size { index -= size }
                    amplitude += h[c + m] * table[index]
                }
                amplitude = (h[c] + 2 * amplitude) * scale
                let phase = c * k % size
                let re = table[phase], im = -table[(phase + 3 * size / 4) % size]  // e^(-iθ): cos θ, -sin θ
                spectrum[2 * k] = Float(amplitude * re)
                spectrum[2 * k + 1] = Float(amplitude * im)
            }
        }
    }
}
