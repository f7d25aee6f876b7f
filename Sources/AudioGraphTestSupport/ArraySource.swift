import AudioGraphCore

/// A source that plays samples held in memory, in blocks whose sizes follow `chunks`
/// (repeated), so tests can check that a node's output does not depend on block sizes.
public final class ArraySource: AudioNode {
    /// Registered under type "array-source" by ``OfflineRender``.
    public static func descriptor(_ source: @escaping @Sendable () -> ArraySource) -> NodeDescriptor {
        NodeDescriptor(type: "array-source", summary: "Plays samples from memory (tests).", role: .source,
                       make: { _ throws(GraphError) in source() })
    }

    let format: StreamFormat
    let channels: [[Float]]
    let chunks: [Int]
    private var position = 0
    private var chunkIndex = 0

    /// `channels[c]` holds channel c; all channels have the same length.
    public init(rate: Double, channels: [[Float]], chunks: [Int] = [1024]) {
        format = StreamFormat(sampleRate: rate, channelCount: channels.count)
        self.channels = channels
        self.chunks = chunks
    }

    public func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] { [format] }
    public func maxOutputFrames(forInputFrames frames: Int) -> Int { max(frames, chunks.max() ?? frames) }
    public var durationFrames: Int64? { Int64(channels[0].count) }

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        let out = io.outputs[0]
        let n = min(chunks[chunkIndex % chunks.count], channels[0].count - position, out.frameCapacity)
        chunkIndex += 1
        for c in 0..<channels.count {
            channels[c].withUnsafeBufferPointer { out.channel(c).update(from: $0.baseAddress! + position, count: n) }
        }
        out.frameLength = n
        position += n
        return position >= channels[0].count ? .endOfStream : .ok
    }

    public func reset() {
        position = 0
        chunkIndex = 0
    }
}
