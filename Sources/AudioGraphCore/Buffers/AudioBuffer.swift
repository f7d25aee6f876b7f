import Glibc

/// A block of deinterleaved float32 PCM with a fixed capacity and a stream time.
///
/// Like `AVAudioPCMBuffer`: storage is allocated once at creation (one contiguous
/// allocation, one plane per channel) and reused; `frameLength` says how many frames of
/// each plane are valid. `sampleTime` is the stream time of the first frame, in frames of
/// this buffer's rate counted from the start of the stream.
///
/// Buffers are owned by one thread at a time (the render thread for bus buffers, the tap
/// thread for tap buffers) and are therefore not `Sendable`.
public final class AudioBuffer {
    /// Rate and channel count of the samples.
    public let format: StreamFormat
    /// Frames each channel plane can hold.
    public let frameCapacity: Int
    /// Valid frames in each plane (0...frameCapacity).
    @exclusivity(unchecked) public var frameLength: Int = 0
    /// Stream time of the first frame, in frames at `format.sampleRate`.
    @exclusivity(unchecked) public var sampleTime: Int64 = 0

    private let storage: UnsafeMutablePointer<Float>
    private let markerStorage: UnsafeMutablePointer<StreamMarker>
    /// Markers attached to this block (at most ``AudioBuffer/markerCapacity``).
    @exclusivity(unchecked) public private(set) var markerCount = 0

    /// Most markers one block carries; more are dropped (a block is at most a few
    /// hundred milliseconds; detectors decide at most a few times a second, and the vad's
    /// hints, at most one per two 10 ms frames, leave room for its decisions).
    public static let markerCapacity = 16

    /// Allocates a silent buffer. Not real-time: call while preparing.
    public convenience init(format: StreamFormat, frameCapacity: Int) {
        self.init(format: format, frameCapacity: frameCapacity, pagedOnWrite: false)
    }

    /// Allocates a silent buffer; with `pagedOnWrite`, one whose memory the system provides
    /// a page at a time, as it is first written (a minor page fault each): for a queue's
    /// blocks, sized for the largest block a bus may carry but mostly holding far fewer
    /// frames, so the process counts only the pages used. Not real-time: call while preparing.
    public init(format: StreamFormat, frameCapacity: Int, pagedOnWrite: Bool) {
        self.format = format
        self.frameCapacity = max(frameCapacity, 1)
        let count = self.frameCapacity * max(format.channelCount, 1)
        let page = Int(getpagesize()), bytes = (count * MemoryLayout<Float>.stride + page - 1) / page * page
        if pagedOnWrite, let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), p != MAP_FAILED {
            // Anonymous pages read as zeros: a silent buffer, bound to Float once.
            storage = p.bindMemory(to: Float.self, capacity: count)
            mappedBytes = bytes
        } else {
            storage = .allocate(capacity: count)
            storage.initialize(repeating: 0, count: count)
            mappedBytes = 0
        }
        markerStorage = .allocate(capacity: Self.markerCapacity)
    }

    /// Bytes mapped for the samples by `init(format:frameCapacity:pagedOnWrite:)`; 0 when allocated.
    private let mappedBytes: Int

    deinit {
        if mappedBytes > 0 { munmap(storage, mappedBytes) } else { storage.deallocate() }
        markerStorage.deallocate()
    }

    /// The markers of this block. Real-time safe.
    @inline(__always)
    public var markers: UnsafeBufferPointer<StreamMarker> {
        UnsafeBufferPointer(start: markerStorage, count: markerCount)
    }

    /// Attaches a marker; returns false when the block already holds the maximum. Real-time safe.
    @discardableResult @inline(__always)
    public func addMarker(_ m: StreamMarker) -> Bool {
        guard markerCount < Self.markerCapacity else { return false }
        markerStorage[markerCount] = m
        markerCount += 1
        return true
    }

    /// Removes every marker. Real-time safe.
    @inline(__always)
    public func clearMarkers() { markerCount = 0 }

    /// Replaces this block's markers with `other`'s. Real-time safe.
    @inline(__always)
    public func copyMarkers(from other: AudioBuffer) {
        markerCount = other.markerCount
        markerStorage.update(from: other.markerStorage, count: markerCount)
    }

    /// Channel count of the buffer.
    @inline(__always) public var channelCount: Int { format.channelCount }

    /// Start of channel `index`'s plane (frameCapacity floats). Real-time safe.
    @inline(__always)
    public func channel(_ index: Int) -> UnsafeMutablePointer<Float> {
        storage + index * frameCapacity
    }

    /// The valid samples of channel `index`. Real-time safe.
    @inline(__always)
    public func samples(_ index: Int) -> UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: channel(index), count: frameLength)
    }

    /// Stream time of the first frame in seconds.
    public var time: Double { Double(sampleTime) / format.sampleRate }

    /// Stream time just after the last valid frame, in seconds.
    public var endTime: Double { Double(sampleTime + Int64(frameLength)) / format.sampleRate }

    /// Copies `count` frames of `source` starting at `from` to this buffer at `to`.
    /// Channel counts must match. Real-time safe.
    @inline(__always)
    public func copyFrames(from source: AudioBuffer, at from: Int = 0, to: Int = 0, count: Int) {
        for c in 0..<min(channelCount, source.channelCount) {
            (channel(c) + to).update(from: source.channel(c) + from, count: count)
        }
    }

    /// Sets `count` frames from `at` to silence on every channel. Real-time safe.
    @inline(__always)
    public func silence(at: Int = 0, count: Int) {
        for c in 0..<channelCount { (channel(c) + at).update(repeating: 0, count: count) }
    }
}
