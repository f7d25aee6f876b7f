import Synchronization

/// Blocks of audio handed from the render thread to another thread: taps, file writers
/// and the recognizer's decoding thread all use one.
///
/// A ring of preallocated blocks, each as large as the bus's biggest block: the render
/// thread copies the bus into the next free block (no allocation) and publishes it through
/// an ``SPSCQueue`` of block indices; the delivery thread regroups blocks into the buffer
/// size the client asked for. When the ring is full the policy decides: `.block` waits
/// (file input), `.drop` loses the block and counts it (live input).
///
/// A block's pages become resident when first written (`AudioBuffer`'s `pagedOnWrite`):
/// blocks mostly carry a fraction of their capacity (after a 48 kHz resampler, ~1.4k of up
/// to ~10k frames), so the ring costs what it holds. The price is one minor page fault, a
/// zeroed page from the kernel, the first time each page is written, once in the queue's life.
package final class BlockQueue: @unchecked Sendable {
    /// The preallocated blocks (for their format and capacity).
    public let blocks: [AudioBuffer]
    private let filled: SPSCQueue<Int32>
    private var nextBlock = 0  // render thread only
    private var freed: SPSCQueue<Int32>
    /// What a full ring does: wait (file input) or drop and count (live input).
    public let policy: BackpressurePolicy
    /// Blocks dropped because the delivery thread fell behind.
    public let lostBlocks = Atomic<Int>(0)
    /// Set when the tap is removed or the run cancelled: stop waiting for space.
    public let abandoned = Atomic<Bool>(false)
    /// Signalled after each block is queued, for a consumer thread that sleeps between
    /// blocks (`waitForData`).
    public let dataReady = Wakeup()
    /// Signalled when the consumer gives a block back (a file run's render thread may wait
    /// for room: see ``hasRoom``). Set before the run.
    public var roomMade: Readiness?

    /// Allocates `blockCount` blocks of `maxFrames` frames. Not real-time.
    public init(format: StreamFormat, maxFrames: Int, blockCount: Int, policy: BackpressurePolicy) {
        blocks = (0..<blockCount).map { _ in AudioBuffer(format: format, frameCapacity: maxFrames, pagedOnWrite: true) }
        filled = SPSCQueue(capacity: blockCount)
        freed = SPSCQueue(capacity: blockCount)
        for i in 0..<blockCount { _ = freed.push(Int32(i)) }
        self.policy = policy
    }

    /// Copies `buffer` into the ring. Render thread; real-time safe.
    @inline(__always)
    public func write(_ buffer: AudioBuffer, silencing gate: (any SilencedSpans)? = nil) {
        var slot = freed.pop()
        if slot == nil && policy == .block {
            while slot == nil && !abandoned.load(ordering: .relaxed) {
                Backoff.pause()
                slot = freed.pop()
            }
        }
        guard let index = slot else {
            lostBlocks.add(1, ordering: .relaxed)
            return
        }
        let block = blocks[Int(index)]
        block.frameLength = buffer.frameLength
        block.sampleTime = buffer.sampleTime
        block.copyFrames(from: buffer, count: buffer.frameLength)
        block.copyMarkers(from: buffer)
        if let gate { Self.mute(block, where: gate) }
        _ = filled.push(index)
        dataReady.signal()
    }

    /// Silences the parts of `block` (10 ms at a time) that lie in what the graph plays.
    private static func mute(_ block: AudioBuffer, where gate: any SilencedSpans) {
        gate.spans(from: block.sampleTime, frames: block.frameLength, rate: block.format.sampleRate) { k, n, covered in
            if covered { for c in 0..<block.channelCount { block.channel(c).advanced(by: k).update(repeating: 0, count: n) } }
        }
    }

    /// Whether a filled block waits for the consumer.
    public var hasData: Bool { filled.count > 0 }

    /// Whether `write` would find a free block at once. A node writing with the `.block`
    /// policy returns ``FlowStatus/notReady`` without one, so the engine waits for the
    /// consumer (``roomMade``) instead of `write` spinning on the render thread.
    public var hasRoom: Bool { freed.count > 0 || abandoned.load(ordering: .relaxed) }

    /// Consumer thread: sleeps until a block is queued or `timeout` seconds passed.
    public func waitForData(timeout: Double) {
        dataReady.wait(timeout: timeout) { filled.count > 0 }
    }

    /// The oldest filled block; pass it to `release` when done. Delivery thread.
    public func next() -> (Int32, AudioBuffer)? {
        guard let i = filled.pop() else { return nil }
        return (i, blocks[Int(i)])
    }

    /// Returns a block to the render thread. Delivery thread.
    public func release(_ index: Int32) {
        _ = freed.push(index)
        roomMade?.signal()
    }
}
