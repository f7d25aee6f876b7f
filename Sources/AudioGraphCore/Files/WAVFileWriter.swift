import Foundation

/// Writes a WAV file from float blocks: 16- or 24-bit PCM, or 32-bit float.
///
/// The header is written first with sizes that say "empty" and patched with the real
/// sizes on `close()` and every second of audio while writing, so the file is valid
/// after a normal end, a stop, a SIGINT, and nearly up to date even after a kill.
/// Not real-time: used from a writer thread.
final class WAVFileWriter {
    enum SampleFormat: String { case s16, s24, f32 }

    let path: String
    let format: StreamFormat
    let sampleFormat: SampleFormat
    private let fd: Int32
    /// This writer's hold on the file (``FilesBeingWritten``), given back at close.
    private var claim: FilesBeingRead.Identity?
    private var isOpen = true
    private var dataBytes = 0
    private var bytesSinceHeader = 0
    private var scratch: UnsafeMutableRawPointer
    private var scratchSize: Int
    /// Samples beyond full scale that 16- and 24-bit PCM clipped (none in float files).
    private(set) var clipped = ClippedSamples()
    static let headerSize = 44
    static let maxDataBytes = Int(UInt32.max) - 64

    init(path: String, format: StreamFormat, sampleFormat: SampleFormat, maxFrames: Int) throws(EngineError) {
        self.path = path
        self.format = format
        self.sampleFormat = sampleFormat
        // A pipe's open waits for a reader for ever, and its header could not be finished.
        if PathKind(path) == .pipe {
            throw EngineError(.io, "is a pipe: a WAV file's header is finished last, so it needs a file it can seek in", file: path,
                              parameter: "path", suggestion: "write to a file and read it when the run ends")
        }
        // Truncating a file a source reads would lose it and crash the reader (it is mapped).
        if FilesBeingRead.contains(path) {
            throw EngineError(.io, "is a file this run reads (a file source's): writing it would destroy it", file: path,
                              parameter: "path", suggestion: "write to another file")
        }
        // Opened without truncating: a file another sink writes is left as it is.
        fd = Foundation.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw EngineError(.io, "cannot create: \(String(cString: strerror(errno)))", file: path, parameter: "path")
        }
        switch FilesBeingWritten.claim(fd) {
        case .taken:
            Foundation.close(fd)
            throw EngineError(.io, "is a file another sink of this run writes: two writers would mix their audio in it", file: path,
                              parameter: "path", suggestion: "give each wav-sink a file of its own")
        case .takenElsewhere:
            Foundation.close(fd)
            throw EngineError(.io, "is a file another process is writing (another audiograph run?): two writers would mix their audio in it",
                              file: path, parameter: "path", suggestion: "give each run a file of its own")
        case .held(let id):
            claim = id
            guard ftruncate(fd, 0) == 0 else {
                let why = String(cString: strerror(errno))
                FilesBeingWritten.release(id)
                Foundation.close(fd)
                throw EngineError(.io, "cannot empty it: \(why)", file: path, parameter: "path")
            }
        case .device:
            break
        }
        scratchSize = max(maxFrames, 1) * format.channelCount * 4
        scratch = .allocate(byteCount: scratchSize, alignment: 16)
        try writeHeader()
    }

    deinit {
        scratch.deallocate()
        if isOpen { Foundation.close(fd) }  // an init that failed at the header, a run never finished
        if let claim { FilesBeingWritten.release(claim) }
    }

    private var bytesPerSample: Int { sampleFormat == .s16 ? 2 : sampleFormat == .s24 ? 3 : 4 }

    /// Appends the valid frames of `buffer`.
    func append(_ buffer: AudioBuffer) throws(EngineError) {
        let channels = format.channelCount
        let n = buffer.frameLength
        let bytes = n * channels * bytesPerSample
        if bytes > scratchSize {
            scratch.deallocate()
            scratchSize = bytes
            scratch = .allocate(byteCount: bytes, alignment: 16)
        }
        guard dataBytes + bytes <= Self.maxDataBytes else {
            throw EngineError(.io, "WAV file would exceed 4 GiB; stopped writing", file: path)
        }
        let time = Double(dataBytes / (channels * bytesPerSample)) / format.sampleRate
        for c in 0..<channels {
            let src = buffer.channel(c)
            if sampleFormat != .f32 { clipped.scan(src, n, time: time, rate: format.sampleRate) }
            switch sampleFormat {
            case .s16:
                let out = scratch.assumingMemoryBound(to: Int16.self)
                for i in 0..<n { out[i * channels + c] = PCM.int16(src[i]).littleEndian }
            case .s24:
                let out = scratch.assumingMemoryBound(to: UInt8.self)
                for i in 0..<n {
                    let v = PCM.int24(src[i])
                    let o = (i * channels + c) * 3
                    out[o] = UInt8(truncatingIfNeeded: v)
                    out[o + 1] = UInt8(truncatingIfNeeded: v >> 8)
                    out[o + 2] = UInt8(truncatingIfNeeded: v >> 16)
                }
            case .f32:
                let out = scratch.assumingMemoryBound(to: UInt32.self)
                for i in 0..<n { out[i * channels + c] = src[i].bitPattern.littleEndian }
            }
        }
        try writeAll(scratch, bytes)
        dataBytes += bytes
        bytesSinceHeader += bytes
        if bytesSinceHeader >= Int(format.sampleRate) * channels * bytesPerSample {
            bytesSinceHeader = 0
            try writeHeader()
        }
    }

    /// Writes the final sizes and closes the file.
    func close() throws(EngineError) {
        defer {
            Foundation.close(fd)
            isOpen = false
            if let claim { FilesBeingWritten.release(claim) }
            claim = nil
        }
        if dataBytes & 1 == 1 {
            var pad: UInt8 = 0
            try writeAll(&pad, 1)
        }
        try writeHeader()
    }

    private func writeHeader() throws(EngineError) {
        var h = [UInt8]()
        h.reserveCapacity(Self.headerSize)
        func put32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian) { h += $0 } }
        func put16(_ v: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: v).littleEndian) { h += $0 } }
        let channels = format.channelCount
        let blockAlign = channels * bytesPerSample
        h += Array("RIFF".utf8)
        put32(36 + dataBytes + (dataBytes & 1))
        h += Array("WAVEfmt ".utf8)
        put32(16)
        put16(sampleFormat == .f32 ? 3 : 1)
        put16(channels)
        put32(Int(format.sampleRate))
        put32(Int(format.sampleRate) * blockAlign)
        put16(blockAlign)
        put16(bytesPerSample * 8)
        h += Array("data".utf8)
        put32(dataBytes)
        let written = h.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == h.count else {
            throw EngineError(.io, "cannot write header: \(String(cString: strerror(errno)))", file: path)
        }
    }

    private func writeAll(_ p: UnsafeRawPointer, _ count: Int) throws(EngineError) {
        var done = 0
        while done < count {
            let n = pwrite(fd, p + done, count - done, off_t(Self.headerSize + dataBytes + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw EngineError(.io, "cannot write: \(String(cString: strerror(errno)))", file: path)
            }
            done += n
        }
    }
}
