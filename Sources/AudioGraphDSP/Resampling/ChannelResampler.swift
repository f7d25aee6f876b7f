/// One channel's rate converter, streaming: what ``Resampler`` runs per channel.
///
/// Implementations keep the same contract: output sample n is at input time
/// n / rate_out, N input frames give round(N · out / in) output frames once `ending`, and
/// the output does not depend on how the input is cut into blocks.
protocol ChannelResampler: AnyObject {
    /// Consumes `count` frames and writes up to `maxOut` outputs; returns how many. With
    /// `ending`, the input after the last frame is silence and the rest is produced.
    /// Real-time safe.
    func process(_ input: UnsafePointer<Float>, count: Int, ending: Bool,
                 output: UnsafeMutablePointer<Float>, maxOut: Int) -> Int
    /// Back to time 0.
    func reset()
}

extension PolyphaseResampler: ChannelResampler {}
