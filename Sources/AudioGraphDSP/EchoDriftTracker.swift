/// How the echo's delay moves with time: the slope of a least-squares line through the last 64
/// delays the ``EchoDelayEstimator`` measured (16 s of sound, each to a fraction of a sample),
/// drawn through the last 8 of the last 2 s, so the echo canceller can resample its reference
/// to the rate the echo comes back at.
///
/// Capture and playback on separate clocks (a USB headset, a loopback that adapts its rate)
/// make the echo come back a little later, or earlier, each second: 100 ppm is 1.6 samples a
/// second at 16 kHz, and an adaptive filter that must chase it loses most of what it cancels
/// (speexdsp's filter, 33 dB of echo return loss enhancement without drift, 19 dB at 50 ppm).
/// A delay off the line is left out (a correlation peak of the voice's own periodicity, 10
/// samples off, pulled the line by a sample); three in a row that agree mean the delay jumped (a
/// sound server's latency changing) and start the line over. Two are not enough: a
/// reverberant room's early reflection, 9 samples after the echo, was the strongest peak twice
/// in a row, and the line drawn from it slewed a held echo by 7 samples in a second (the
/// filter lost 20 dB, and the assistant's own voice interrupted it).
/// Times and delays in samples of the node's rate. Allocation-free once made.
struct EchoDriftTracker {
    static let capacity = 64
    /// Fewest points, and shortest span of time, a line is drawn through.
    static let minimumPoints = 8
    let minimumSpan: Double
    let recentSpan: Double
    /// A delay further than this from the line (samples: 0.1 ms, plus 5 ppm of the time since
    /// the last point, or 2000 ppm before there is a line) is left out, unless the next two
    /// agree with it: then the delay has jumped and the line starts over from them.
    let outlier: Double
    /// The first of the delays off the line in a row that agree with it, and how many agree.
    private var offLine: (time: Double, delay: Double)?
    private var offLineAgreeing = 0
    /// Delays off the line, in a row and agreeing, that start it over.
    static let agreeingToRestart = 3
    private var times = [Double](repeating: 0, count: capacity)
    private var delays = [Double](repeating: 0, count: capacity)
    private var head = 0, count = 0
    /// The line: delay = intercept + slope · (time - origin); nil until drawn.
    private(set) var slope: Double?
    private var intercept = 0.0, origin = 0.0

    /// For a node at `rate` Hz.
    init(rate: Double) {
        minimumSpan = 2 * rate
        recentSpan = 2 * rate
        outlier = 0.0001 * rate
    }

    /// The delay the line gives at `time`, if there is a line.
    func delay(at time: Double) -> Double? {
        slope.map { intercept + $0 * (time - origin) }
    }

    /// Adds a measured delay (samples) at `time` (samples) and draws the line again.
    mutating func add(time: Double, delay: Double) {
        if count > 0 {
            let last = (head + Self.capacity - 1) % Self.capacity
            let since = max(0, time - times[last])
            let expected = self.delay(at: time) ?? delays[last]
            let tolerance = outlier + since * (slope == nil ? 0.002 : 5e-6)
            if abs(delay - expected) > tolerance {
                guard let o = offLine, abs(o.delay - delay) <= outlier + (time - o.time) * 0.002 else {
                    offLine = (time, delay)
                    offLineAgreeing = 1
                    return
                }
                offLineAgreeing += 1
                guard offLineAgreeing >= Self.agreeingToRestart else { return }
                reset()
                append(time: o.time, delay: o.delay)
            }
        }
        offLine = nil
        offLineAgreeing = 0
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
        offLineAgreeing = 0
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
        let k = std / stt
        slope = k
        origin = t0 + mt
        // Where the line lies: the last 2 s's delays, along the slope (the rate of a loopback or
        // a card changes now and then, so a line drawn through 16 s of sound can lie a sample
        // or two off the echo after a pause; then the first delays of the new sound alone).
        var anchor = 0.0, used = 0
        for j in 0..<min(count, Self.recentPoints) {
            let i = (head + Self.capacity - 1 - j) % Self.capacity
            if j > 0 && t1 - times[i] > recentSpan { break }
            anchor += delays[i] - k * (times[i] - origin)
            used += 1
        }
        intercept = anchor / Double(used)
    }

    /// Points the line's position is taken from: the last 8, within 2 s.
    static let recentPoints = 8
}
