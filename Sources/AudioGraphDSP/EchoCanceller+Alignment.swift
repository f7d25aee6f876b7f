import AudioGraphCore
import CSpeexDSP

/// Where the echo canceller's reference is read: behind the microphone by the echo's measured
/// delay (`align`), at the rate the delay creeps (`drift`).
extension EchoCanceller {
    /// The reference's delay in force: how many samples it is read behind the microphone.
    var appliedDelay: Double { Double(micConsumed) - refLine.readPosition }

    /// Before each frame, with `drift`: the reference is read at the rate the measured delay
    /// moves, plus what brings the echo back to where it lay in the tail within about a second
    /// once the filter holds, a quarter second while it is measured again (the listeners
    /// leave the answer out then, and a pause lets the clocks drift apart by a sample or
    /// two); at most 2000 ppm either way. The reference is never read ahead of the microphone
    /// (within the interpolator's half width).
    func setReferenceRate(_ io: inout ProcessIO) {
        let now = Double(micConsumed)
        guard reportedDelay, let slope = drift.slope, let measured = drift.delay(at: now) else { return }
        guard let offset = driftOffset else {
            driftOffset = measured - appliedDelay
            return
        }
        let error = measured - offset - appliedDelay
        if abs(error) > 0.002 * rate {
            // Not a creep but a jump the line has drawn only now: placed again, not slewed.
            return placeAndReport(echoAt: measured / rate, &io)
        }
        let creep = max(-0.002, min(0.002, slope + error / ((holds ? 1 : 0.25) * rate)))
        if creep < 0 && appliedDelay < Double(FractionalDelayLine.taps / 2) {
            // No room left to read the reference earlier: where the echo clearly creeps
            // earlier (20 ppm or more) and lies well into the tail, it is placed at the start
            // once (the filter starts over), else it moves within the tail.
            if slope < -20e-6 && measured - lead * rate > appliedDelay + 0.01 * rate {
                return placeAndReport(echoAt: measured / rate, &io)
            }
            refLine.step = 1
            driftOffset = measured - appliedDelay
        } else {
            refLine.step = 1 - creep
        }
    }

    /// Feeds the block to the delay estimator; takes a new delay it finds (the reference is
    /// read that much behind, the filter starts over) and reports it.
    func follow(_ mic: AudioBuffer, _ ref: AudioBuffer, _ io: inout ProcessIO) {
        let m = mic.channel(0), r = ref.channel(0), refCount = ref.frameLength
        for i in 0..<mic.frameLength {
            let found = estimator?.add(mic: m[i], ref: i < refCount ? r[i] : 0)
            if followDrift, let fine = estimator?.takeFine() {
                drift.add(time: Double(micSeen + i) - EchoDelayEstimator.fineAge * rate, delay: fine * rate)
            }
            guard let found else { continue }
            // Where the filter has it now: kept while it lies in the first three quarters of
            // the tail once the filter holds (a converged filter is not thrown away for a few
            // milliseconds); before, within its first half (a filter whose first taps have
            // nothing to learn converges more slowly).
            let within = found * rate - appliedDelay
            let keep = holds ? 0.75 * tail : 0.5 * tail
            if within >= 0 && within <= keep * rate {
                if reportedDelay { continue }  // the delay the filter works with is reported once
            } else {
                place(echoAt: found)
            }
            reportedDelay = true
            _ = io.emit(NodeEvent(Self.echoDelayKind, t: Double(mic.sampleTime + Int64(i)) / rate, values: (found, 0, 0, 0)))
        }
    }

    /// The echo (`found` seconds late) at the start of the filter's tail, with room for what
    /// leads it: the reference is read that much behind, the filter starts over, and so does
    /// the line through the delays (those measured before belong to the path it left: kept,
    /// their position would be taken for the echo's).
    func place(echoAt found: Double) {
        let target = max(0, Int((found - lead) * rate))
        refLine.readPosition = Double(micConsumed - target)
        refLine.step = 1
        driftOffset = nil
        drift.reset()
        if let echo { speex_echo_state_reset(echo) }
        startMeasuring()
    }

    /// Places the echo where the drift line has it now, and says so (`echo-delay`).
    private func placeAndReport(echoAt found: Double, _ io: inout ProcessIO) {
        place(echoAt: found)
        _ = io.emit(NodeEvent(Self.echoDelayKind, t: Double(micConsumed) / rate, values: (found, 0, 0, 0)))
    }

    /// How far into the filter's tail the echo is placed (seconds).
    var lead: Double { min(0.03, tail / 4) }
}
