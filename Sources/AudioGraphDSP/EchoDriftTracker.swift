/// How the echo's delay moves with time: a least-squares line through the last 32 delays the
/// ``EchoDelayEstimator`` measured (each to a fraction of a sample), so the echo canceller can
/// resample its reference to the rate the echo comes back at.
///
/// Capture and playback on separate clocks (a USB headset, a loopback that adapts its rate)
/// make the echo come back a little later, or earlier, each second: 100 ppm is 1.6 samples a
/// second at 16 kHz, and an adaptive filter that must chase it loses most of what it cancels
/// (speexdsp's filter, 33 dB of echo return loss enhancement without drift, 19 dB at 50 ppm).
/// A delay that jumps instead (a sound server's latency changing) starts the line over.
/// Times and delays in samples of the node's rate. Allocation-free once made.
struct EchoDriftTracker {
    static let capacity = 32
    /// Fewest points, and shortest span of time, a line is drawn through.
    static let minimumPoints = 8
    let minimumSpan: Double
    /// A delay this far from the line (samples) is left out, unless the next one agrees with
    /// it: then the delay has jumped and the line starts over from the two.
    let jump: Double
    private var offLine: (time: Double, delay: Double)?
    private var times = [Double](repeating: 0, count: capacity)
    private var delays = [Double](repeating: 0, count: capacity)
    private var head = 0, count = 0
    /// The line: delay = intercept + slope · (time - origin); nil until drawn.
    private(set) var slope: Double?
    private var intercept = 0.0, origin = 0.0

    /// For a node at `rate` Hz.
    init(rate: Double) {
        minimumSpan = 2 * rate
        jump = 0.002 * rate
    }

    /// The delay the line gives at `time`, if there is a line.
    func delay(at time: Double) -> Double? {
        slope.map { intercept + $0 * (time - origin) }
    }

    /// Adds a measured delay (samples) at `time` (samples) and draws the line again.
    mutating func add(time: Double, delay: Double) {
        if count > 0 {
            let expected = self.delay(at: time) ?? delays[(head + Self.capacity - 1) % Self.capacity]
            if abs(delay - expected) > jump {
                defer { offLine = (time, delay) }
                guard let o = offLine, abs(o.delay - delay) <= jump else { return }
                reset()
                append(time: o.time, delay: o.delay)
            }
        }
        offLine = nil
        append(time: time, delay: delay)
        fit()
    }

    private mutating func append(time: Double, delay: Double) {
        times[head] = time
        delays[head] = delay
        head = (head + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    mutating func reset() {
        count = 0
        slope = nil
        offLine = nil
    }

    private mutating func fit() {
        let first = (head + Self.capacity - count) % Self.capacity
        let t0 = times[first], t1 = times[(head + Self.capacity - 1) % Self.capacity]
        guard count >= Self.minimumPoints, t1 - t0 >= minimumSpan else { return }
        var st = 0.0, sd = 0.0
        for k in 0..<count {
            let j = (first + k) % Self.capacity
            st += times[j] - t0
            sd += delays[j]
        }
        let mt = st / Double(count), md = sd / Double(count)
        var stt = 0.0, std = 0.0
        for k in 0..<count {
            let j = (first + k) % Self.capacity
            let dt = times[j] - t0 - mt
            stt += dt * dt
            std += dt * (delays[j] - md)
        }
        guard stt > 0 else { return }
        slope = std / stt
        origin = t0 + mt
        intercept = md
    }
}
