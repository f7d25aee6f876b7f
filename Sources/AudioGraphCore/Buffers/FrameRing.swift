import Synchronization

/// A bounded lock-free SPSC ring of interleaved float frames, for device callbacks: the
/// PulseAudio thread writes what the server delivered, the render thread reads it
/// deinterleaved into a block (or the other way round for playback). Allocated once.
package final class FrameRing: @unchecked Sendable {
    /// Interleaved channels per frame.
    public let channels: Int
    /// Capacity in frames.
    public let capacity: Int
    private let storage: UnsafeMutablePointer<Float>
    private let head = Atomic<Int>(0)  // frames read (consumer)
    private let tail = Atomic<Int>(0)  // frames written (producer)

    /// A ring holding up to `capacity` frames of `channels` channels. Not real-time: allocates.
    public init(channels: Int, capacity: Int) {
        self.channels = max(1, channels)
        self.capacity = max(1, capacity)
        storage = .allocate(capacity: self.capacity * self.channels)
        storage.initialize(repeating: 0, count: self.capacity * self.channels)
    }

    deinit { storage.deallocate() }

    /// Frames waiting to be read.
    public var available: Int { tail.load(ordering: .acquiring) - head.load(ordering: .acquiring) }

    /// Room for frames to be written.
    public var space: Int { capacity - available }

    /// Appends up to `frames` interleaved frames; returns how many fit. Producer only; real-time safe.
    @discardableResult
    public func write(interleaved p: UnsafePointer<Float>, frames: Int) -> Int {
        let t = tail.load(ordering: .relaxed)
        let n = min(frames, capacity - (t - head.load(ordering: .acquiring)))
        guard n > 0 else { return 0 }
        let start = t % capacity
        let first = min(n, capacity - start)
        (storage + start * channels).update(from: p, count: first * channels)
        if n > first { storage.update(from: p + first * channels, count: (n - first) * channels) }
        tail.store(t + n, ordering: .releasing)
        return n
    }

    /// Appends frames from a deinterleaved buffer; returns how many fit. Producer only; real-time safe.
    @discardableResult
    public func write(_ buffer: AudioBuffer, from offset: Int = 0, frames: Int) -> Int {
        let t = tail.load(ordering: .relaxed)
        let n = min(frames, capacity - (t - head.load(ordering: .acquiring)))
        guard n > 0 else { return 0 }
        for c in 0..<min(channels, buffer.channelCount) {
            let src = buffer.channel(c) + offset
            for i in 0..<n { storage[((t + i) % capacity) * channels + c] = src[i] }
        }
        tail.store(t + n, ordering: .releasing)
        return n
    }

    /// Drops up to `frames` frames; returns how many. Consumer only; real-time safe.
    @discardableResult
    public func discard(frames: Int) -> Int {
        let h = head.load(ordering: .relaxed)
        let n = min(frames, tail.load(ordering: .acquiring) - h)
        head.store(h + n, ordering: .releasing)
        return n
    }

    /// Moves up to `frames` frames into `buffer` (deinterleaving) at `offset`; returns how many.
    /// Consumer only; real-time safe.
    @discardableResult
    public func read(into buffer: AudioBuffer, at offset: Int = 0, frames: Int) -> Int {
        let h = head.load(ordering: .relaxed)
        let n = min(frames, tail.load(ordering: .acquiring) - h)
        guard n > 0 else { return 0 }
        for c in 0..<min(channels, buffer.channelCount) {
            let dst = buffer.channel(c) + offset
            for i in 0..<n { dst[i] = storage[((h + i) % capacity) * channels + c] }
        }
        head.store(h + n, ordering: .releasing)
        return n
    }

    /// Moves up to `frames` interleaved frames into `p`; returns how many. Consumer only; real-time safe.
    @discardableResult
    public func read(interleaved p: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        let h = head.load(ordering: .relaxed)
        let n = min(frames, tail.load(ordering: .acquiring) - h)
        guard n > 0 else { return 0 }
        let start = h % capacity
        let first = min(n, capacity - start)
        p.update(from: storage + start * channels, count: first * channels)
        if n > first { (p + first * channels).update(from: storage, count: (n - first) * channels) }
        head.store(h + n, ordering: .releasing)
        return n
    }
}
