import Foundation

/// Samples that are not numbers (NaN) or infinite never enter a graph: a source that takes
/// samples from outside (a float file, float capture) replaces them with silence and counts
/// them. One such sample would otherwise spread through every filter it meets (a resampler's
/// FFT low-pass turns one into a block of them) and crash conversions to integers.
package enum NonFiniteSamples {
    /// Replaces non-finite values in `p[0..<count]` with 0. Returns how many there were and
    /// the index of the first. Real-time safe.
    @inline(__always)
    public static func replace(_ p: UnsafeMutablePointer<Float>, count: Int) -> (count: Int, first: Int?) {
        var n = 0
        var first: Int?
        for i in 0..<count where !p[i].isFinite {
            p[i] = 0
            n += 1
            if first == nil { first = i }
        }
        return (n, first)
    }

    /// The warning's text: how many were replaced, from when.
    public static func warning(count: Int, firstTime: Double, what: String) -> String {
        let s = count == 1 ? "" : "s"
        return "\(what): \(count) sample\(s) not a number or infinite, replaced by silence (the first at \(String(format: "%.3f", firstTime)) s)"
    }
}

/// Float to integer PCM, saturating, with non-finite values as silence (converting NaN or
/// infinity to an integer traps).
package enum PCM {
    /// A float sample as 16-bit PCM: scaled by 32768, rounded, clipped; non-finite values become 0.
    @inline(__always)
    public static func int16(_ x: Float) -> Int16 {
        let v = (x * 32768).rounded()
        return v.isNaN ? 0 : Int16(max(-32768, min(32767, v)))
    }

    /// A float sample as 24-bit PCM in an Int32: scaled by 2^23, rounded, clipped; non-finite values become 0.
    @inline(__always)
    public static func int24(_ x: Float) -> Int32 {
        let v = (Double(x) * 8_388_608).rounded()
        return v.isNaN ? 0 : Int32(max(-8_388_608, min(8_388_607, v)))
    }
}
