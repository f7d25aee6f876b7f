import Foundation

/// Test signals and measurements, generated and computed in code (no fixtures).
public enum Signals {
    /// A sine of `frequency` Hz, `amplitude` peak, `seconds` long at `rate`.
    public static func sine(_ frequency: Double, amplitude: Double = 0.5, seconds: Double, rate: Double) -> [Float] {
        (0..<Int(seconds * rate)).map { Float(amplitude * sin(2 * .pi * frequency * Double($0) / rate)) }
    }

    /// Amplitude of the `frequency` component of `x` (least squares over the whole slice).
    public static func amplitude(of frequency: Double, in x: ArraySlice<Float>, rate: Double) -> Double {
        var c = 0.0, s = 0.0
        for (k, v) in x.enumerated() {
            let w = 2 * .pi * frequency * Double(k) / rate
            c += Double(v) * cos(w)
            s += Double(v) * sin(w)
        }
        return 2 * (c * c + s * s).squareRoot() / Double(x.count)
    }

    /// RMS of a slice.
    public static func rms(_ x: ArraySlice<Float>) -> Double {
        (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(x.count, 1))).squareRoot()
    }

    /// Decibels of an amplitude ratio.
    public static func db(_ ratio: Double) -> Double { 20 * log10(max(ratio, 1e-20)) }
}
