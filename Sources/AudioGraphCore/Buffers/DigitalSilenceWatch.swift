/// Notices a capture that gives only digital silence (every sample exactly 0) for a while: a
/// microphone muted by its switch or at the server, a disconnected input, or a monitor of a
/// sink that plays nothing. A live microphone's noise is never exactly 0 for long.
///
/// Real-time safe: one pass over each block, no allocation.
package struct DigitalSilenceWatch {
    /// Frames of unbroken digital silence that make a report.
    public let threshold: Int
    private var silentFrames = 0
    private var reported = false

    public init(threshold: Int) { self.threshold = threshold }

    /// Takes the next block. True once per stretch of silence, when it reaches `threshold`
    /// frames; any non-zero sample ends the stretch (a later one is reported again).
    public mutating func observe(_ buffer: AudioBuffer) -> Bool {
        var silent = true
        for c in 0..<buffer.channelCount where silent {
            let p = buffer.channel(c)
            for i in 0..<buffer.frameLength where p[i] != 0 {
                silent = false
                break
            }
        }
        guard silent else {
            silentFrames = 0
            reported = false
            return false
        }
        silentFrames += buffer.frameLength
        guard !reported && silentFrames >= threshold else { return false }
        reported = true
        return true
    }

    /// Seconds of silence so far in the current stretch, at `rate`.
    public func silentSeconds(rate: Double) -> Double { Double(silentFrames) / rate }
}
