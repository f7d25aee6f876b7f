import Synchronization

/// A tap installed on a node's output bus (`AudioEngine.installTap`).
///
/// The block is called on the engine's delivery thread, never on the render thread,
/// with buffers of exactly `bufferSize` frames (the last one of a run may be shorter),
/// each a new buffer the block may keep. It sees every frame of the bus in order; with
/// live input a tap that falls behind loses whole blocks, counted in `lostBlocks`, rather
/// than stall the audio path. With file input the engine waits for it instead.
public final class Tap: @unchecked Sendable {
    /// The tapped node and bus.
    public let node: String
    /// The output bus tapped.
    public let bus: Int
    /// Frames per delivered buffer.
    public let bufferSize: Int
    /// Format of the delivered buffers: the bus format, or the channel count asked for.
    public let format: StreamFormat
    /// The bus's own format.
    public let busFormat: StreamFormat

    let queue: BlockQueue
    private let block: @Sendable (AudioBuffer) -> Void
    private var pending: AudioBuffer?  // delivery thread only
    private var expectedTime: Int64 = -1

    init(node: String, bus: Int, bufferSize: Int, format: StreamFormat?, point: TapPoint, policy: BackpressurePolicy,
         block: @escaping @Sendable (AudioBuffer) -> Void) {
        self.node = node
        self.bus = bus
        self.bufferSize = bufferSize
        self.busFormat = point.format
        self.format = format ?? point.format
        let blockCount = max(16, 4 * (bufferSize / max(point.maxFrames, 1) + 1))
        queue = BlockQueue(format: point.format, maxFrames: point.maxFrames, blockCount: blockCount, policy: policy)
        self.block = block
    }

    /// Blocks lost because the client's block was too slow for live input.
    public var lostBlocks: Int { queue.lostBlocks.load(ordering: .relaxed) }

    /// Moves queued blocks into client buffers. Delivery thread. Returns whether it did work.
    func drain() -> Bool {
        var worked = false
        while let (index, blockBuffer) = queue.next() {
            worked = true
            var offset = 0
            if expectedTime >= 0 && blockBuffer.sampleTime != expectedTime { flush() }  // a gap: lost blocks
            expectedTime = blockBuffer.sampleTime + Int64(blockBuffer.frameLength)
            while offset < blockBuffer.frameLength {
                let buffer: AudioBuffer
                if let p = pending {
                    buffer = p
                } else {
                    buffer = AudioBuffer(format: format, frameCapacity: bufferSize)
                    buffer.sampleTime = blockBuffer.sampleTime + Int64(offset)
                    pending = buffer
                }
                let n = min(bufferSize - buffer.frameLength, blockBuffer.frameLength - offset)
                if format.channelCount == busFormat.channelCount {
                    buffer.copyFrames(from: blockBuffer, at: offset, to: buffer.frameLength, count: n)
                } else {
                    mixChannels(from: blockBuffer, at: offset, into: buffer, count: n)
                }
                buffer.frameLength += n
                offset += n
                if buffer.frameLength == bufferSize {
                    pending = nil
                    block(buffer)
                }
            }
            queue.release(index)
        }
        return worked
    }

    /// Channel conversion for taps that asked for another channel count (delivery thread):
    /// to mono, the mean of the channels; from mono, the same signal on each; otherwise
    /// channel i goes to i mod the output count, averaged.
    private func mixChannels(from src: AudioBuffer, at offset: Int, into dst: AudioBuffer, count n: Int) {
        let inCh = src.channelCount, outCh = dst.channelCount
        for o in 0..<outCh {
            let d = dst.channel(o) + dst.frameLength
            d.update(repeating: 0, count: n)
            let sources = inCh == 1 ? [0] : Array(stride(from: o, to: inCh, by: outCh))
            for i in sources {
                let s = src.channel(i) + offset
                for k in 0..<n { d[k] += s[k] }
            }
            if sources.count > 1 {
                let scale = 1 / Float(sources.count)
                for k in 0..<n { d[k] *= scale }
            }
        }
    }

    /// Delivers a partly filled buffer (end of run, or before a gap). Delivery thread.
    func flush() {
        if let p = pending, p.frameLength > 0 { block(p) }
        pending = nil
    }
}
