/// The shape of a stream of audio: sample rate and channel count.
///
/// Samples inside the engine are always 32-bit float, deinterleaved, nominally in -1...1;
/// files and devices convert at the edges.
public struct StreamFormat: Hashable, Sendable, CustomStringConvertible {
    /// Frames per second, in Hz.
    public var sampleRate: Double
    /// Number of channels (1...8 for files; at most ``StreamFormat/maxChannels``).
    public var channelCount: Int

    /// Largest channel count the engine carries on one bus.
    public static let maxChannels = 32

    /// A format of `channelCount` channels at `sampleRate` Hz.
    public init(sampleRate: Double, channelCount: Int) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// "48000 Hz stereo", "16000 Hz mono", "44100 Hz 6 ch".
    public var description: String {
        let rate = sampleRate == sampleRate.rounded() ? String(Int(sampleRate)) : String(sampleRate)
        let layout: String
        switch channelCount {
        case 1: layout = "mono"
        case 2: layout = "stereo"
        default: layout = "\(channelCount) ch"
        }
        return "\(rate) Hz \(layout)"
    }

    /// Seconds of audio in `frames` frames of this format.
    public func seconds(_ frames: Int64) -> Double { Double(frames) / sampleRate }
}
