import Foundation

/// File input in a graph that answers what it hears (a node that ``AudioNode/observesEvents``,
/// such as a speech-synth replying to final results): the render thread waits for the
/// delivery of the events about the audio it has rendered, so an answer enters the graph
/// at a stream time that does not depend on how far ahead of the decoder the render thread
/// happened to be. With live input the audio's own pace does this.
///
/// Rule: before rendering the block that starts at stream time `T`, every event decided
/// before `T - lockstepSlack` has been delivered to the observers. The slack lets a
/// lagging node trail the render thread by the delay of the converters in front of it
/// (a resampler's filter) without the two waiting on each other. A node that schedules
/// its answer `lockstepSlack` plus one of its blocks after the event's stream time
/// therefore starts it at the same stream time in every file run.
extension AudioEngine {
    /// How far behind the render thread delivery may be with file input in lockstep (s).
    public static let lockstepSlack = 0.2

    /// Waits (file input only) until events up to `t - lockstepSlack` are delivered; gives up
    /// after 2 s of no progress (a lagging node that stopped reporting), or on stop/cancel.
    func awaitDelivery(before t: Double) {
        // Nothing was decided before the stream began (and a lagging node reports only on
        // audio it has been given: waiting here would wait for itself).
        guard t - Self.lockstepSlack > 0 else { return }
        var last = Double(bitPattern: deliveredThrough.load(ordering: .acquiring))
        var idle = 0
        while last < t - Self.lockstepSlack && idle < 8000 {
            if cancelRequested.load(ordering: .relaxed) || stopRequested.load(ordering: .relaxed) { return }
            deliveryWake.signal()
            usleep(250)
            let now = Double(bitPattern: deliveredThrough.load(ordering: .acquiring))
            idle = now > last ? 0 : idle + 1
            last = now
        }
    }
}
