import Foundation
import Testing

@testable import AudioGraphDSP

/// The low-pass's spectrum, computed from the filter's symmetry, is the filter's DFT: the
/// same, to double precision rounded to float, as a plain DFT summed term by term, and
/// within float rounding of FFTW's real transform of the same taps.
@Suite struct LinearPhaseSpectrumTests {
    /// A symmetric filter of `count` (odd) taps with uneven values.
    static func symmetricTaps(_ count: Int) -> [Double] {
        let c = (count - 1) / 2
        return (0..<count).map { j in
            let m = Double(abs(j - c))
            return cos(0.37 * m) * exp(-m / Double(count)) + (m == 0 ? 0.5 : 0)
        }
    }

    @Test(arguments: [(1, 8, 4), (3, 16, 8), (33, 160, 80), (129, 640, 100)])
    func matchesThePlainDFT(taps count: Int, size: Int, bins: Int) {
        let taps = Self.symmetricTaps(count)
        let scale = 0.75
        var spectrum = [Float](repeating: .nan, count: 2 * bins)
        spectrum.withUnsafeMutableBufferPointer {
            linearPhaseSpectrum(taps, scale: scale, size: size, bins: bins, into: $0.baseAddress!)
        }
        let peak = taps.reduce(0) { $0 + abs($1) } * scale
        for k in 0..<bins {
            var re = 0.0, im = 0.0
            for (j, t) in taps.enumerated() {
                let angle = -2 * Double.pi * Double(j * k % size) / Double(size)
                re += t * scale * cos(angle)
                im += t * scale * sin(angle)
            }
            #expect(abs(Double(spectrum[2 * k]) - re) <= 1e-6 * peak, "bin \(k) re")
            #expect(abs(Double(spectrum[2 * k + 1]) - im) <= 1e-6 * peak, "bin \(k) im")
        }
    }

    @Test func matchesFFTWsRealTransform() throws {
        let size = 7680, bins = 1280
        let taps = Self.symmetricTaps(513)
        let fft = try #require(RealFFT(size: size))
        fft.input.update(repeating: 0, count: size)
        for (j, t) in taps.enumerated() { fft.input[j] = Float(t / 100) }
        fft.transform()
        var spectrum = [Float](repeating: .nan, count: 2 * bins)
        spectrum.withUnsafeMutableBufferPointer {
            linearPhaseSpectrum(taps, scale: 0.01, size: size, bins: bins, into: $0.baseAddress!)
        }
        var worst: Float = 0
        for i in 0..<2 * bins { worst = max(worst, abs(spectrum[i] - fft.output[i])) }
        let peak = Float(taps.reduce(0) { $0 + abs($1) } / 100)
        #expect(worst <= 1e-5 * peak, "largest difference \(worst) against a peak of \(peak)")
    }
}
