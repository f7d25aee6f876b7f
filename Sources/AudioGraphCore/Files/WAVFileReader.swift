import CDSPKernels
import Foundation

/// A WAV file mapped into memory, read as float frames.
///
/// Mapping (rather than `read` calls) keeps file I/O off the render thread: reading a
/// block is a memory copy with conversion, bounded by the mapped size. Only a window of the
/// file stays resident: the first `window` bytes are read in when the file opens, the kernel
/// is asked to read the next window ahead of the reader (`MADV_WILLNEED`, which does not
/// wait), and pages more than a window behind it are let go (`MADV_DONTNEED`: the process
/// stops counting them; they stay in the page cache), so a long file costs the same memory
/// as a short one: at most two windows and a block resident. Those two calls come once per
/// window of file (1 MB: 5.5 s of 48 kHz stereo, 33 s of 16 kHz mono), not per block.
final class WAVFileReader {
    let path: String
    let header: WAVHeader
    private let base: UnsafeRawPointer
    private let mappedSize: Int
    /// Render thread: the file's resident window, [released, prefetched) in bytes.
    private var released = 0, prefetched = 0
    static let window = 1 << 20
    private static let page = Int(getpagesize())

    /// Opens and checks `path`. Errors name the file and what is wrong with it.
    init(path: String) throws(EngineError) {
        self.path = path
        let fd = Foundation.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw EngineError(.audioFile, "cannot open: \(String(cString: strerror(errno)))", file: path)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw EngineError(.audioFile, "cannot stat: \(String(cString: strerror(errno)))", file: path)
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw EngineError(.audioFile, "not a regular file", file: path)
        }
        let size = Int(st.st_size)
        guard size > 0 else { throw EngineError(.audioFile, "not a WAV file: empty", file: path) }
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
            throw EngineError(.audioFile, "cannot map: \(String(cString: strerror(errno)))", file: path)
        }
        base = UnsafeRawPointer(p)
        mappedSize = size
        // The first window resident now (the header is in it); the first read asks for the next.
        let first = min(size, Self.window)
        madvise(p, first, MADV_WILLNEED)
        var sum: UInt8 = 0
        for page in stride(from: 0, to: first, by: Self.page) { sum &+= base.load(fromByteOffset: page, as: UInt8.self) }
        withExtendedLifetime(sum) {}
        prefetched = first
        do {
            header = try WAVHeader.parse(UnsafeRawBufferPointer(start: base, count: size))
        } catch {
            munmap(p, size)
            throw EngineError(.audioFile, error.message, file: path)
        }
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), mappedSize) }

    /// Keeps the resident window around byte `position` (see the type's description).
    private func prefetch(through position: Int) {
        let page = Self.page
        if position < released {  // read again from further back (a loop): start over there
            released = position / page * page
            prefetched = released
        }
        if position + Self.window / 2 > prefetched && prefetched < mappedSize {
            let length = min(Self.window, mappedSize - prefetched)
            madvise(UnsafeMutableRawPointer(mutating: base + prefetched), length, MADV_WILLNEED)
            prefetched += length
        }
        if position - released > 2 * Self.window {
            let end = (position - Self.window) / page * page
            madvise(UnsafeMutableRawPointer(mutating: base + released), end - released, MADV_DONTNEED)
            released = end
        }
    }

    /// Lets go of every page past the first window (after a scan of the whole file).
    fileprivate func releaseAll() {
        let start = Self.window
        guard mappedSize > start else { return }
        madvise(UnsafeMutableRawPointer(mutating: base + start), mappedSize - start, MADV_DONTNEED)
        prefetched = start
        released = 0
    }

    /// Converts `count` frames starting at file frame `start` into `buffer` at frame `offset`.
    /// Real-time safe (the file is mapped; callers keep `start + count <= frameCount`).
    func read(into buffer: AudioBuffer, at offset: Int = 0, start: Int, count: Int) {
        let channels = header.format.channelCount
        let stride = header.blockAlign
        prefetch(through: header.dataOffset + (start + count) * stride)
        let src = base + header.dataOffset + start * stride
        if case .int(bits: 16) = header.encoding, Int(bitPattern: src) & 1 == 0 {
            readInt16(src.assumingMemoryBound(to: Int16.self), channels: channels, into: buffer, at: offset, count: count)
            return
        }
        for c in 0..<channels {
            header.encoding.decode(src + c * header.encoding.bytes, stride: stride, count: count, into: buffer.channel(c) + offset)
        }
    }
}

extension WAVFileReader {
    /// Float samples that are not numbers or infinite (``read`` gives silence for them): how
    /// many, and the frame of the first. Integer encodings have none.
    func nonFiniteSamples() -> (count: Int, firstFrame: Int) {
        guard case .float(let bits) = header.encoding else { return (0, 0) }
        let channels = header.format.channelCount, stride = header.blockAlign
        var count = 0, first = -1
        for frame in 0..<header.frameCount {
            let src = base + header.dataOffset + frame * stride
            for c in 0..<channels {
                let v = bits == 32
                    ? Float(bitPattern: UInt32(littleEndian: src.loadUnaligned(fromByteOffset: c * 4, as: UInt32.self)))
                    : Float(Double(bitPattern: UInt64(littleEndian: src.loadUnaligned(fromByteOffset: c * 8, as: UInt64.self))))
                if !v.isFinite {
                    count += 1
                    if first < 0 { first = frame }
                }
            }
        }
        releaseAll()
        return (count, max(0, first))
    }

    /// The common case, aligned 16-bit PCM, in one pass over the interleaved frames.
    @inline(__always)
    fileprivate func readInt16(_ src: UnsafePointer<Int16>, channels: Int, into buffer: AudioBuffer, at offset: Int,
                               count: Int) {
        let k: Float = 1 / 32768
        switch channels {
        case 1:
            ag_s16_deinterleave(src, 1, buffer.channel(0) + offset, nil, Int64(count))
        case 2:
            ag_s16_deinterleave(src, 2, buffer.channel(0) + offset, buffer.channel(1) + offset, Int64(count))
        default:
            for c in 0..<channels {
                let out = buffer.channel(c) + offset
                for i in 0..<count { out[i] = Float(Int16(littleEndian: src[i * channels + c])) * k }
            }
        }
    }
}

/// G.711 decoding tables (ITU-T G.711), scaled to -1...1.
enum G711 {
    static let muLaw: [Float] = (0..<256).map { i in
        let u = ~UInt8(i)
        let sign = u & 0x80, exponent = Int((u >> 4) & 7), mantissa = Int(u & 0x0F)
        let magnitude = ((mantissa << 3) + 0x84) << exponent - 0x84
        return Float(sign != 0 ? -magnitude : magnitude) / 32768
    }
    static let aLaw: [Float] = (0..<256).map { i in
        let a = UInt8(i) ^ 0x55
        let sign = a & 0x80, exponent = Int((a >> 4) & 7), mantissa = Int(a & 0x0F)
        let magnitude = exponent == 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1)
        return Float(sign != 0 ? magnitude : -magnitude) / 32768
    }
}
