import Foundation

/// Samples beyond full scale (|x| > 1) that a conversion to integer PCM clips: counted, with
/// the time of the first and the peak, so the loss is reported rather than heard. Float audio
/// goes past full scale after a gain or a mixer, or in a float file written at the wrong
/// scale; integer PCM cannot hold it. A sample of exactly full scale is not counted.
package struct ClippedSamples: Sendable {
    /// How many samples were beyond full scale.
    package private(set) var count = 0
    /// The largest magnitude seen beyond full scale (0 before any).
    package private(set) var peak: Float = 0
    /// Stream time of the first, in seconds.
    package private(set) var firstTime: Double?

    package init() {}

    /// Counts the samples of `p[0..<n]` beyond full scale; `time` is p[0]'s stream time.
    /// No allocation.
    @inline(__always)
    package mutating func scan(_ p: UnsafePointer<Float>, _ n: Int, time: Double, rate: Double) {
        var over = 0, top: Float = 0, first = -1
        for i in 0..<n {
            let a = abs(p[i])
            if a > 1 {
                over &+= 1
                top = max(top, a)
                if first < 0 { first = i }
            }
        }
        guard over > 0 else { return }
        count += over
        peak = max(peak, top)
        if firstTime == nil { firstTime = time + Double(first) / rate }
    }

    /// "N samples beyond full scale were clipped WHAT (peak +x dBFS, the first at t s)", `what`
    /// saying where ("writing s16"), nil when there were none.
    package func report(_ what: String) -> String? {
        guard count > 0, let firstTime else { return nil }
        let (s, were) = count == 1 ? ("", "was") : ("s", "were")
        return String(format: "%d sample%@ beyond full scale %@ clipped %@ (peak %+.1f dBFS, the first at %.3f s)",
                      count, s, were, what, 20 * log10(Double(peak)), firstTime)
    }
}
