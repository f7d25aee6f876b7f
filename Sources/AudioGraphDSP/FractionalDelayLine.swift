import Foundation

/// The echo canceller's reference on its way to the filter: a delay line read at a fractional
/// position that may advance a little faster or slower than one sample per sample, so the
/// reference follows a microphone on another clock (a sound card's capture and playback
/// clocks, a resampling loopback) instead of drifting against it.
///
/// Samples are written as they arrive (`push`); each output sample is the input interpolated
/// at `readPosition` (a Kaiser-windowed sinc of 32 taps, 256 phases, linear between phases:
/// within -85 dB of an exact fractional delay up to 0.7 of Nyquist, -55 dB at 0.8), then moves on by
/// `step` input samples. At a whole position the output is the input sample itself, bit for
/// bit, so a line whose step stays 1 changes nothing. Input before the first sample or not
/// yet written reads as silence. Allocation-free once made; render thread.
struct FractionalDelayLine {
    static let taps = 32, phases = 256
    /// Kernel rows per phase (phases + 1, the last the first shifted by one tap).
    private static let sharedKernel: [Float] = makeKernel()
    private let kernel = FractionalDelayLine.sharedKernel
    private var storage: [Int16]
    /// Input samples written so far (the next one's position).
    private(set) var written = 0
    /// Where the next output sample is read (input samples; may be negative: silence first).
    var readPosition: Double = 0
    /// Input samples the read position moves on per output sample.
    var step: Double = 1

    /// Keeps at least `capacity` samples of input (the longest delay plus what is queued).
    init(capacity: Int) {
        storage = [Int16](repeating: 0, count: max(1, capacity + Self.taps))
    }

    /// Room for more input without overwriting what the read position still needs.
    var space: Int { max(0, storage.count - Self.taps - max(0, written - Int(readPosition.rounded(.down)))) }

    mutating func push(zeros n: Int) {
        for _ in 0..<min(n, space) { append(0) }
    }

    mutating func push(_ p: UnsafeMutablePointer<Float>, count n: Int) {
        for i in 0..<min(n, space) { append(Int16(max(-32768, min(32767, (p[i] * 32768).rounded())))) }
    }

    private mutating func append(_ v: Int16) {
        storage[written % storage.count] = v
        written += 1
    }

    /// Fills `frame` from the read position on, moving it by `step` per sample.
    mutating func pop(into frame: inout [Int16]) {
        for i in 0..<frame.count {
            frame[i] = sample(at: readPosition)
            readPosition += step
        }
    }

    private func input(_ j: Int) -> Float {
        j < 0 || j >= written ? 0 : Float(storage[j % storage.count])
    }

    private func sample(at position: Double) -> Int16 {
        let whole = position.rounded(.down)
        let i = Int(whole)
        let f = position - whole
        if f == 0 {
            return i < 0 || i >= written ? 0 : storage[i % storage.count]
        }
        // Phase row p and p + 1, mixed by where f falls between them.
        let x = f * Double(Self.phases)
        let p = min(Self.phases - 1, Int(x))
        let w = Float(x - Double(p))
        let first = i - Self.taps / 2 + 1
        let at = first >= 0 ? first % storage.count : 0
        var acc: Float = 0
        kernel.withUnsafeBufferPointer { k in
            let ka = k.baseAddress! + p * Self.taps, kb = ka + Self.taps
            if first >= 0 && first + Self.taps <= written && at + Self.taps <= storage.count {
                // All 32 inputs written and side by side in the ring.
                storage.withUnsafeBufferPointer { s in
                    let x = s.baseAddress! + at
                    for t in 0..<Self.taps { acc += (ka[t] + w * (kb[t] - ka[t])) * Float(x[t]) }
                }
            } else {
                for t in 0..<Self.taps { acc += (ka[t] + w * (kb[t] - ka[t])) * input(first + t) }
            }
        }
        return Int16(max(-32768, min(32767, acc.rounded())))
    }

    /// Row p, tap t: the weight of input i - 15 + t for a position i + p / phases.
    private static func makeKernel() -> [Float] {
        let half = taps / 2, beta = 8.6, cutoff = 0.95
        var k = [Float](repeating: 0, count: (phases + 1) * taps)
        for p in 0...phases {
            let f = Double(p) / Double(phases)
            for t in 0..<taps {
                let x = Double(t - half + 1) - f  // distance of the tap from the position
                let sinc = x == 0 ? 1 : sin(Double.pi * cutoff * x) / (Double.pi * cutoff * x)
                let r = x / Double(half)
                let window = abs(r) >= 1 ? 0 : besselI0(beta * (1 - r * r).squareRoot()) / besselI0(beta)
                k[p * taps + t] = Float(cutoff * sinc * window)
            }
            let sum = k[(p * taps)..<((p + 1) * taps)].reduce(0, +)  // unity gain at DC
            for t in 0..<taps { k[p * taps + t] /= sum }
            if p == 0 || p == phases {  // whole positions: the sample itself
                for t in 0..<taps { k[p * taps + t] = 0 }
                k[p * taps + half - 1 + (p == phases ? 1 : 0)] = 1
            }
        }
        return k
    }

    private static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0
        for m in 1..<40 {
            term *= (x / (2 * Double(m))) * (x / (2 * Double(m)))
            sum += term
        }
        return sum
    }
}
