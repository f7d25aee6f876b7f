import Foundation

/// File input in a graph that answers what it hears (a node that ``AudioNode/observesEvents``,
/// such as a speech-synth replying to final results): the render thread waits for the
/// delivery of the events about the audio it has rendered, so an answer enters the graph
/// at a stream time that does not depend on how far ahead of the decoder the render thread
/// happened to be. With live input the audio's own pace does this.
///
/// Rule: before rendering the block that starts at stream time `T`, every event decided
/// before `min(T - lockstepSlack, G)` has been delivered to the observers, where `G` is the
/// stream time through which the nodes working behind the audio (``AudioNode/worksBehind``)
/// have been given their input. Both bounds are fixed by the blocks rendered, not by thread
/// timing, so the wait is deterministic; the slack lets such a node trail the render thread
/// without the two waiting on each other, and `G` keeps the wait to what can be known: a
/// node behind converters that hold audio back (an FFT resampler's bursts) cannot report
/// about audio it has not been given. A node that schedules its answer `lockstepSlack` plus
/// one of its blocks after the event's stream time therefore starts it at the same stream
/// time in every file run.
extension AudioEngine {
    /// How far behind the render thread delivery may be with file input in lockstep (s).
    public static let lockstepSlack = 0.2
    /// How long the render thread waits for delivery without progress before it gives up
    /// (a node working behind the audio that stopped reporting); each give-up is counted in
    /// ``lockstepStalls`` (``Options/lockstepPatience``, tests shorten it).
    static let defaultLockstepPatience = 5.0

    /// Waits (file input only) until events up to `min(t - lockstepSlack, given)` are
    /// delivered, sleeping on the delivery thread's signal; returns on stop/cancel, or after
    /// `lockstepPatience` without progress (counted), and then does not wait again until
    /// delivery has moved on (a stopped node costs one patience, not one per block).
    func awaitDelivery(before t: Double, given: Double) {
        awaitDelivery(through: min(t - Self.lockstepSlack, given))
    }

    /// Waits (file input only) until events up to `target` are delivered and, with
    /// `laggingPast`, until the nodes working behind the audio have reported past that stream
    /// time (the end of what the graph heard: they have finished with it); gives up as
    /// ``awaitDelivery(before:given:)`` does.
    func awaitDelivery(through target: Double, laggingPast: Double = -.infinity) {
        // Nothing was decided before the stream began.
        guard target > 0 else { return }
        var last = Double(bitPattern: deliveredThrough.load(ordering: .acquiring))
        var lagging = Double(bitPattern: laggingThrough.load(ordering: .acquiring))
        if last == lockstepStalledAt { return }
        var waitedSince = -1.0
        while last < target || lagging <= laggingPast {
            if cancelRequested.load(ordering: .relaxed) || stopRequested.load(ordering: .relaxed) { return }
            deliveryWake.signal()
            deliveredWake.wait(timeout: 0.1) {
                Double(bitPattern: deliveredThrough.load(ordering: .acquiring)) > last
                    || Double(bitPattern: laggingThrough.load(ordering: .acquiring)) > lagging
            }
            let now = Double(bitPattern: deliveredThrough.load(ordering: .acquiring))
            let nowLagging = Double(bitPattern: laggingThrough.load(ordering: .acquiring))
            if now > last || nowLagging > lagging {
                waitedSince = -1
                last = now
                lagging = nowLagging
            } else if waitedSince < 0 {
                waitedSince = monotonicSeconds()
            } else if monotonicSeconds() - waitedSince > options.lockstepPatience {
                lockstepStalls.add(1, ordering: .relaxed)
                lockstepStalledAt = last
                return
            }
        }
    }
}
