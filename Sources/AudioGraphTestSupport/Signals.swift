import Foundation

/// Test signals and measurements, generated and computed in code (no fixtures).
public enum Signals {
    /// A sine of `frequency` Hz, `amplitude` peak, `seconds` long at `rate`.
    public static func sine(_ frequency: Double, amplitude: Double = 0.5, seconds: Double, rate: Double) -> [Float] {
        (0..<Int(seconds * rate)).map { Float(amplitude * sin(2 * .pi * frequency * Double($0) / rate)) }
    }

    /// A voiced, speech-like tone: harmonics of `f0` with a falling spectrum.
    public static func voiced(_ f0: Double = 140, amplitude: Double = 0.3, seconds: Double, rate: Double) -> [Float] {
        let n = Int(seconds * rate)
        var x = [Float](repeating: 0, count: n)
        var h = 1
        while Double(h) * f0 < min(3800, rate / 2) {
            let a = amplitude / Double(h)
            for i in 0..<n { x[i] += Float(a * sin(2 * .pi * f0 * Double(h) * Double(i) / rate)) }
            h += 1
        }
        return x
    }

    /// Deterministic white noise of RMS `rms`.
    public static func noise(rms: Double, seconds: Double, rate: Double, seed: UInt64 = 42) -> [Float] {
        var s = seed
        return (0..<Int(seconds * rate)).map { _ in
            s = s &* 6364136223846793005 &+ 1442695040888963407
            let u = Double(s >> 11) / Double(1 << 53) * 2 - 1
            return Float(u * rms * 3.0.squareRoot())
        }
    }

    /// `signal` placed into `into` from `at` seconds (added).
    public static func place(_ signal: [Float], into: inout [Float], at: Double, rate: Double) {
        let start = Int(at * rate)
        for (k, v) in signal.enumerated() where start + k < into.count { into[start + k] += v }
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
