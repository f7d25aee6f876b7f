import Foundation

/// The coefficient tables of a rational polyphase resampler (out/in = L/M), designed at
/// set-up: a Kaiser-windowed sinc low-pass split into L phases.
///
/// Output sample k lies at input time t = k·M/L = i + p/L (integer i, phase p). With the
/// kernel centred on t, it is the dot product of `phase(p)` with input frames
/// i - halfTaps + 1 ... i + halfTaps, so its time is exactly t: the filter's delay is
/// compensated by construction and an impulse at input time t comes out at t.
struct PolyphaseFilter {
    /// A filter's sizes and band edges, known without designing its coefficients (for buffer
    /// sizes, and for choosing between resampling methods at negotiation).
    struct Shape: Sendable {
        /// Interpolation factor (phases) and decimation step, reduced.
        let up: Int
        let down: Int
        /// Coefficients per phase (even, a multiple of 8 for SIMD).
        let taps: Int
        let inputRate: Int, passband: Double, stopband: Double, attenuation: Double
        var halfTaps: Int { taps / 2 }

        /// For `inputRate` → `outputRate` at `quality`. Rates must be whole Hz.
        init(inputRate: Int, outputRate: Int, quality: ResamplerQuality) {
            let edge = Double(min(inputRate, outputRate)) / 2
            self.init(inputRate: inputRate, outputRate: outputRate, passband: quality.passband * edge,
                      stopband: quality.stopband * edge, attenuation: quality.attenuation)
        }

        /// Flat to `passband` Hz, `attenuation` dB from `stopband` Hz on.
        init(inputRate: Int, outputRate: Int, passband: Double, stopband: Double, attenuation: Double) {
            let g = gcd(inputRate, outputRate)
            up = outputRate / g
            down = inputRate / g
            // Transition width in input-rate cycles per sample, and the Kaiser design rule.
            var t = Int(kaiserLength(attenuation: attenuation, transition: (stopband - passband) / Double(inputRate))
                .rounded(.up)) + 2
            t = (t + 7) / 8 * 8
            taps = max(8, t)
            self.inputRate = inputRate
            self.passband = passband
            self.stopband = stopband
            self.attenuation = attenuation
        }
    }

    let shape: Shape
    var up: Int { shape.up }
    var down: Int { shape.down }
    var taps: Int { shape.taps }
    var halfTaps: Int { shape.halfTaps }
    /// `up` phases × `taps` coefficients, each phase stored in dot-product order.
    let coefficients: [Float]

    /// Designs the filter for `inputRate` → `outputRate`. Rates must be whole Hz.
    init(inputRate: Int, outputRate: Int, quality: ResamplerQuality) {
        self.init(Shape(inputRate: inputRate, outputRate: outputRate, quality: quality))
    }

    /// Designs a filter flat to `passband` Hz with `attenuation` dB from `stopband` Hz on.
    init(inputRate: Int, outputRate: Int, passband: Double, stopband: Double, attenuation: Double) {
        self.init(Shape(inputRate: inputRate, outputRate: outputRate, passband: passband, stopband: stopband,
                        attenuation: attenuation))
    }

    /// Designs the coefficients of `shape` (set-up only: thousands of Bessel terms and sines).
    init(_ shape: Shape) {
        self.shape = shape
        let up = shape.up, taps = shape.taps, inputRate = shape.inputRate
        let passband = shape.passband, stopband = shape.stopband, a = shape.attenuation
        let beta = kaiserBeta(attenuation: a)
        // Cut-off in the middle of the transition band, as a fraction of the input rate.
        let fc = (passband + stopband) / 2 / Double(inputRate)
        let half = Double(taps) / 2
        let i0beta = besselI0(beta)
        var h = [Float](repeating: 0, count: up * taps)
        var sum = 0.0
        var raw = [Double](repeating: 0, count: up * taps)
        for p in 0..<up {
            for r in 0..<taps {
                // Coefficient for input frame i - halfTaps + 1 + r at offset x from t.
                let x = Double(r - taps / 2 + 1) - Double(p) / Double(up)
                guard abs(x) < half else { continue }
                let v = kaiserSinc(x, halfWidth: half, cutoff: fc, beta: beta, i0beta: i0beta)
                raw[p * taps + r] = v
                sum += v
            }
        }
        // Unity gain at DC, averaged over phases.
        let scale = Double(up) / sum
        for k in raw.indices { h[k] = Float(raw[k] * scale) }
        coefficients = h
    }
}

func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

/// Output frames for `frames` input frames in all: round(frames · up / down), halves up. Every
/// method and stage ends a stream on this count.
func resampledLength(_ frames: Int, up: Int, down: Int) -> Int { (frames * up + down / 2) / down }

/// Kaiser's rule: taps of a low-pass with `attenuation` dB and a transition band of
/// `transition` cycles per sample.
func kaiserLength(attenuation a: Double, transition: Double) -> Double {
    (a - 7.95) / (14.36 * transition)
}

/// A Kaiser-windowed sinc low-pass (cut-off `cutoff` cycles per sample) at offset `x`
/// samples from its centre; the window reaches zero at ±`halfWidth`.
func kaiserSinc(_ x: Double, halfWidth: Double, cutoff fc: Double, beta: Double, i0beta: Double) -> Double {
    let w = besselI0(beta * (1 - (x / halfWidth) * (x / halfWidth)).squareRoot()) / i0beta
    return (x == 0 ? 2 * fc : sin(2 * .pi * fc * x) / (.pi * x)) * w
}

/// Kaiser's β for a stopband attenuation in dB.
func kaiserBeta(attenuation a: Double) -> Double {
    a > 50 ? 0.1102 * (a - 8.7) : a > 21 ? 0.5842 * pow(a - 21, 0.4) + 0.07886 * (a - 21) : 0
}

/// Modified Bessel function of the first kind, order 0 (series; converges fast for β ≤ 20).
func besselI0(_ x: Double) -> Double {
    var sum = 1.0, term = 1.0
    let q = x * x / 4
    for k in 1..<64 {
        term *= q / Double(k * k)
        sum += term
        if term < sum * 1e-17 { break }
    }
    return sum
}

/// Filter length for documentation and benchmarks.
package enum PolyphaseTaps {
    /// Coefficients per output sample for a rate pair and preset name.
    public static func count(from: Int, to: Int, quality: String) -> Int {
        PolyphaseFilter.Shape(inputRate: from, outputRate: to, quality: ResamplerQuality(rawValue: quality) ?? .high).taps
    }
}
