import Foundation

/// The echo past the adaptive filter's tail: a reverberant room's late reverberation, which the
/// filter (a quarter second) does not model and so leaves in its output, predicted per
/// frequency bin so that the echo canceller's last stage can take it out (WebRTC's AEC3 models
/// the same part of the echo the same way, from its linear filter's tail).
///
/// What the room does past the tail is assumed to go on as the tail ends: from the filter's
/// impulse response (``learn(impulseResponse:partitions:frame:scale:)``), the energy of its
/// last 20 ms partition and the rate at which its second half decays. Each frame, the power
/// spectrum of the reference that has just left the filter's reach
/// (``update(leaving:)``) adds to an estimate that decays at that rate:
///
///     late(t) = decay · (late(t-1) + gain · |X(t − tail)|²)
///
/// A filter whose tail does not decay (still converging, or a room without reverberation past
/// it) gives no estimate. Real-time safe after `init`: nothing allocated per frame.
final class LateEchoEstimator {
    let bins: Int
    /// The predicted late echo's power per bin, in the units of the spectra given.
    private let late: UnsafeMutablePointer<Float>
    /// Energy of the filter's last partition (relative to the reference's), and the decay per
    /// frame past it; 0 when there is no decaying tail to go on from.
    private(set) var gain: Float = 0
    private(set) var decay: Float = 0
    /// The least decay, in dB per 20 ms frame, that counts as a reverberant tail (60 dB in
    /// 2.4 s); flatter is the filter's noise floor.
    static let leastDecay: Float = 0.5

    init(bins: Int) {
        self.bins = bins
        late = .allocate(capacity: bins)
        reset()
    }

    deinit { late.deallocate() }

    /// Forgets the estimate and the tail it was drawn from.
    func reset() {
        late.update(repeating: 0, count: bins)
        gain = 0
        decay = 0
    }

    /// Draws the tail from the filter's impulse response: `partitions` × `frame` taps, each
    /// `scale` times the echo path's gain (speexdsp reports them so). The second half of the
    /// partitions after the strongest one is fitted with a line in dB (least squares); its
    /// value at the last partition is the gain, its slope the decay.
    func learn(impulseResponse h: UnsafePointer<Int32>, partitions: Int, frame: Int, scale: Float) {
        var strongest = 0, strongestEnergy: Float = 0
        // A partition's energy (computed again where needed: nothing is stored).
        func energy(_ j: Int) -> Float {
            var e: Float = 0
            for i in 0..<frame {
                let v = Float(h[j * frame + i]) / scale
                e += v * v
            }
            return e
        }
        for j in 0..<partitions {
            let e = energy(j)
            if e > strongestEnergy { strongestEnergy = e; strongest = j }
        }
        let first = strongest + max(1, (partitions - strongest) / 2)
        let count = partitions - first
        guard count >= 3, strongestEnergy > 0 else { gain = 0; decay = 0; return }
        var sx: Float = 0, sy: Float = 0, sxx: Float = 0, sxy: Float = 0
        for j in first..<partitions {
            let x = Float(j - first), y = 10 * log10(max(energy(j), 1e-20))
            sx += x; sy += y; sxx += x * x; sxy += x * y
        }
        let n = Float(count)
        let slope = (n * sxy - sx * sy) / max(n * sxx - sx * sx, 1e-9)
        let atLast = (sy - slope * sx) / n + slope * Float(count - 1)
        guard slope <= -Self.leastDecay else { gain = 0; decay = 0; return }
        gain = pow(10, atLast / 10)
        decay = pow(10, slope / 10)
    }

    /// One frame: `leaving` is the power spectrum of the reference that has just passed the
    /// filter's tail.
    func update(leaving x: UnsafePointer<Float>) {
        let d = decay, g = gain * decay
        for k in 0..<bins { late[k] = d * (late[k] + g * x[k]) }
    }

    /// The predicted late echo's power in bin `k`.
    @inline(__always)
    func power(_ k: Int) -> Float { late[k] }
}
