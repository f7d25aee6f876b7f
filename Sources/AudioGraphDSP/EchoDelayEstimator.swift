import Foundation

/// Finds how late what the graph plays comes back into the microphone: the lag of the
/// strongest peak of the two signals' phase-transform cross-correlation (GCC-PHAT), at 8 kHz,
/// over the last half second of microphone against the reference up to `maxLag` earlier.
///
/// An echo canceller's filter covers a fixed tail (0.25 s); a playback path's latency (the
/// sound server's buffers, a loopback, a Bluetooth speaker) can be longer, and changes when the
/// server's latencies do. With this, the reference is delayed so that the echo falls at the
/// start of the filter's tail, and follows the delay as it moves. An estimate counts only when
/// both signals carry sound, the peak stands well above the correlation's floor, and the two
/// estimates after it agree with it (within 1 ms; three in a row, 0.75 s), for the first
/// delay as for one away from the delay in force; while the echo still shows at the delay in force,
/// a stronger peak elsewhere (a sound the graph played twice) does not move it.
///
/// Feed it every sample (`add`), render thread; every `hop` it may return a new delay.
/// Allocation-free once made; two forward FFTs and one inverse of 16384 points every 0.25 s.
struct EchoDelayEstimator {
    /// Samples of the node's rate per 8 kHz sample (boxcar-averaged down).
    let decimation: Int
    let window = 4000  // 0.5 s at 8 kHz
    let maxLag: Int
    let hop = 2000  // 0.25 s
    private var ref: [Float], mic: [Float]
    private var refHead = 0, micHead = 0, filled = 0, sinceEstimate = 0
    private var refSum: Float = 0, micSum: Float = 0, phase = 0
    private let a: RealFFT, b: RealFFT
    /// The last estimate not yet confirmed (8 kHz samples), and the delay in force.
    private var candidate: Int?
    private(set) var delay: Int?
    /// How many estimates in a row have agreed with the one before.
    private var agreeing = 0

    /// The delay in force, in seconds (nil before the first is confirmed).
    var delaySeconds: Double? { delay.map { Double($0) / 8000 } }
    /// The last estimate to a fraction of a sample (seconds; the peak's parabola), and the
    /// middle of the half second it was measured over (seconds before the latest sample): set at
    /// each clear estimate, taken once by `takeFine`.
    private var fine: Double?
    static let fineAge = 0.25

    /// For a node at `rate` Hz, lags up to `maxSeconds`.
    init?(rate: Double, maxSeconds: Double) {
        decimation = max(1, Int((rate / 8000).rounded()))
        maxLag = Int(maxSeconds * 8000)
        ref = [Float](repeating: 0, count: window + maxLag)
        mic = [Float](repeating: 0, count: window)
        var n = 1
        while n < window + maxLag { n *= 2 }
        guard let a = RealFFT(size: n), let b = RealFFT(size: n) else { return nil }
        self.a = a
        self.b = b
    }

    /// Takes one sample of each at the node's rate; the delay in seconds each time an
    /// estimate is confirmed (the two after it agree within 1 ms), else nil.
    mutating func add(mic m: Float, ref r: Float) -> Double? {
        micSum += m
        refSum += r
        phase += 1
        guard phase == decimation else { return nil }
        let scale = 1 / Float(decimation)
        ref[refHead] = refSum * scale
        mic[micHead] = micSum * scale
        refHead = (refHead + 1) % ref.count
        micHead = (micHead + 1) % mic.count
        refSum = 0
        micSum = 0
        phase = 0
        filled = min(filled + 1, ref.count)
        sinceEstimate += 1
        // From the first half second on (the reference's older history is silence until filled).
        guard filled >= window, sinceEstimate >= hop else { return nil }
        sinceEstimate = 0
        guard let (lag, fineLag) = estimate() else {
            candidate = nil
            agreeing = 0
            return nil
        }
        fine = fineLag / 8000
        defer { candidate = lag }
        guard let c = candidate, abs(c - lag) <= 8 else {
            agreeing = 0
            return nil
        }
        agreeing += 1
        // A jump away from the delay in force waits for three estimates in a row (the user's
        // voice over the cancel earcon gave two agreeing ones at 0.94 s for 0.17 s, live), and
        // so does the first delay: the end earcon's echo under an answer's first quarter
        // second gave two agreeing ones at 0 ms for 118 ms in the reverberant room, and the
        // filter, placed there, held 10-20 dB less for the rest of the run.
        let confirmed = delay.map { abs($0 - lag) <= 8 } ?? false  // the delay in force, seen again
        if !confirmed && agreeing < 2 { return nil }
        delay = lag
        return Double(lag) / 8000
    }

    /// The fine estimate made since the last call, if any (seconds).
    mutating func takeFine() -> Double? {
        defer { fine = nil }
        return fine
    }

    /// The lag (8 kHz samples) of a clear correlation peak over the current windows, whole and
    /// to a fraction (the vertex of a parabola through the peak and its neighbours), or nil.
    private mutating func estimate() -> (Int, Double)? {
        let n = a.size
        var refEnergy: Float = 0, micEnergy: Float = 0
        // Oldest first: mic[0..<window) is the last half second, ref the same plus maxLag before.
        for i in 0..<window {
            let v = mic[(micHead + i) % window]
            a.input[i] = v
            micEnergy += v * v
        }
        for i in window..<n { a.input[i] = 0 }
        for i in 0..<ref.count {
            let v = ref[(refHead + i) % ref.count]
            b.input[i] = v
            refEnergy += v * v
        }
        for i in ref.count..<n { b.input[i] = 0 }
        // Both must carry sound: about -50 dBFS RMS or more.
        guard micEnergy / Float(window) > 1e-5, refEnergy / Float(ref.count) > 1e-5 else { return nil }
        a.transform()
        b.transform()
        // conj(M) · R, phase only, into b's spectrum (and kept in a's: the inverse transform
        // overwrites its own); back into b.input.
        for k in 0...(n / 2) {
            let mr = a.output[2 * k], mi = -a.output[2 * k + 1]
            let rr = b.output[2 * k], ri = b.output[2 * k + 1]
            let re = mr * rr - mi * ri, im = mr * ri + mi * rr
            let mag = (re * re + im * im).squareRoot() + 1e-12
            b.output[2 * k] = re / mag
            b.output[2 * k + 1] = im / mag
            a.output[2 * k] = re / mag
            a.output[2 * k + 1] = im / mag
        }
        b.inverse()
        // b.input[k] = Σ m[i] r[i + k]: the echo `maxLag - k` samples after the reference.
        var best = 0, peak: Float = -.infinity, sum: Float = 0
        for k in 0...maxLag {
            let v = b.input[k]
            sum += abs(v)
            if v > peak { peak = v; best = k }
        }
        let floor = sum / Float(maxLag + 1)
        guard peak > 10 * floor else { return nil }
        if let held = echoStillAt(delay, floor: floor, awayFrom: best) { (best, peak) = held }
        var offset = 0.0
        if best > 0 && best < maxLag {
            let l = Double(b.input[best - 1]), c = Double(peak), r = Double(b.input[best + 1])
            let curve = l - 2 * c + r
            if curve < 0 { offset = max(-0.5, min(0.5, 0.5 * (l - r) / curve)) }
        }
        return (maxLag - best, Double(maxLag - best) - refinedPeak(near: Double(best) + offset) + Double(best))
    }

    /// Where the echo was found (`delay`, 8 kHz samples) and is still, when the strongest peak
    /// lies elsewhere: a clear peak (10 times the floor) within 2 ms of it, at its index in
    /// the correlation, else nil. A sound played twice (an earcon, a repeated word) correlates
    /// with both its copies, and the copy's peak can win: it is the same echo, not a new path.
    /// A path that really changed leaves no echo at the old delay once the half second
    /// measured is past the change.
    private func echoStillAt(_ delay: Int?, floor: Float, awayFrom best: Int) -> (Int, Float)? {
        guard let delay else { return nil }
        let center = maxLag - delay
        guard abs(center - best) > 8 else { return nil }
        var at = center, value = -Float.infinity
        for k in max(0, center - 16)...min(maxLag, center + 16) where b.input[k] > value {
            value = b.input[k]
            at = k
        }
        return value > 10 * floor ? (at, value) : nil
    }

    /// The correlation's peak to a small fraction of a sample: Newton's method on the
    /// band-limited correlation (the phase-only spectrum kept in `a.output`) from `start`,
    /// three steps. The parabola's vertex alone errs by up to a fifth of a sample where the
    /// peak falls between samples (a sharp phase-transform peak is no parabola), and the echo's
    /// drift is read from these to a hundredth.
    private func refinedPeak(near start: Double) -> Double {
        let n = a.size
        var tau = start
        for _ in 0..<3 {
            // c(τ) = Σ Re(P_k e^{iω_k τ}); c' = Σ -ω_k Im(…), c'' = Σ -ω_k² Re(…).
            let step = 2 * Double.pi / Double(n)
            let dr = cos(step * tau), di = sin(step * tau)
            var er = 1.0, ei = 0.0, slope = 0.0, curve = 0.0
            for k in 1..<(n / 2) {
                let nr = er * dr - ei * di
                ei = er * di + ei * dr
                er = nr
                let pr = Double(a.output[2 * k]), pi = Double(a.output[2 * k + 1])
                let re = pr * er - pi * ei, im = pr * ei + pi * er
                let w = step * Double(k)
                slope -= w * im
                curve -= w * w * re
            }
            guard curve < 0 else { return start }
            let move = -slope / curve
            guard abs(move) < 0.5 else { return start }
            tau += move
        }
        return abs(tau - start) < 1 ? tau : start
    }
}
