import Foundation

/// WAV audio read in order from a descriptor that cannot seek: a pipe from ffmpeg, sox or
/// arecord (`audiograph run --source -`).
///
/// The header is read first (up to its data chunk), then the samples as they come, until
/// the data chunk's declared size or the end of the stream. A writer that cannot seek back
/// to its header leaves the data size at 0 or 0xFFFFFFFF (ffmpeg, GStreamer), or at a
/// placeholder larger than any stream (sox, arecord): then the audio is all that follows.
/// Not for the render thread (it blocks in `read`).
package final class WAVStreamReader {
    /// Where the audio comes from, for messages ("standard input").
    package let name: String
    /// The stream's rate and channels.
    package let format: StreamFormat
    private let fd: Int32
    private let encoding: WAVHeader.Encoding
    private let frameBytes: Int
    /// Bytes of audio still to come by the header (nil: to the end of the stream).
    private var remaining: Int?
    /// Bytes read and not yet decoded (the header's read-ahead, a partial frame).
    private var pending: [UInt8]
    private var chunk = [UInt8](repeating: 0, count: 65536)
    private var atEnd = false

    /// The longest header read before its data chunk (a header is a few hundred bytes;
    /// metadata chunks before the audio may make it longer).
    static let headerLimit = 1 << 20

    /// Reads and checks the header from `fd`. Errors name `name` and what is wrong.
    package init(fd: Int32, name: String) throws(EngineError) {
        self.fd = fd
        self.name = name
        var bytes: [UInt8] = []
        var header: WAVHeader?
        var ended = false
        while header == nil {
            let n = Self.read(fd, into: &chunk, count: chunk.count)
            if n < 0 { throw EngineError(.audioFile, "cannot read: \(String(cString: strerror(errno)))", file: name) }
            if n == 0 { ended = true } else { bytes += chunk[0..<n] }
            let parsed = bytes.withUnsafeBytes { b -> Result<WAVHeader, WAVParseError> in
                do throws(WAVParseError) { return .success(try WAVHeader.parse(b)) } catch { return .failure(error) }
            }
            switch parsed {
            case .success(let h): header = h
            case .failure(let error):
                // Past the RIFF header, a stream that is not WAV is so at once.
                let notWAV = bytes.count >= 12 && error.message.hasPrefix("not a WAV file")
                let tooLong = bytes.count >= Self.headerLimit
                if ended || notWAV || tooLong {
                    let failure = bytes.isEmpty ? "no audio came (the stream was empty)"
                        : tooLong ? "\(error.message) in the first \(Self.headerLimit >> 20) MB" : error.message
                    throw EngineError(.audioFile, failure + (notWAV ? ": pipe WAV in" : ""), file: name,
                                      suggestion: notWAV ? "ffmpeg -i FILE -f wav -, sox FILE -t wav -, arecord -f S16_LE -r 16000 -t wav" : nil)
                }
            }
        }
        guard let header else { preconditionFailure() }
        format = header.format
        encoding = header.encoding
        frameBytes = header.blockAlign
        let declared = bytes.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: header.dataOffset - 4, as: UInt32.self))) }
        remaining = declared == 0 || declared == 0xFFFF_FFFF ? nil : declared
        pending = Array(bytes[header.dataOffset...])
        if let r = remaining, pending.count > r { pending.removeLast(pending.count - r) }
        remaining = remaining.map { $0 - pending.count }
        atEnd = ended
    }

    /// The next samples, interleaved, in -1...1: whole frames, as many as have come (at
    /// least one frame unless the audio has ended). Empty at the end of the audio; a last
    /// partial frame is dropped.
    package func next() throws(EngineError) -> [Float] {
        while pending.count < frameBytes && !atEnd && remaining != 0 {
            let want = min(chunk.count, remaining ?? chunk.count)
            let n = Self.read(fd, into: &chunk, count: want)
            if n < 0 { throw EngineError(.audioFile, "cannot read: \(String(cString: strerror(errno)))", file: name) }
            if n == 0 { atEnd = true } else { pending += chunk[0..<n]; remaining = remaining.map { $0 - n } }
        }
        let frames = pending.count / frameBytes
        guard frames > 0 else { return [] }
        let channels = format.channelCount
        var out = [Float](repeating: 0, count: frames * channels)
        pending.withUnsafeBytes { src in
            out.withUnsafeMutableBufferPointer { dst in
                for c in 0..<channels {
                    encoding.decode(src.baseAddress! + c * encoding.bytes, stride: frameBytes, count: frames,
                                    into: dst.baseAddress! + c, outStride: channels)
                }
            }
        }
        pending.removeFirst(frames * frameBytes)
        return out
    }

    private static func read(_ fd: Int32, into buffer: inout [UInt8], count: Int) -> Int {
        while true {
            let n = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress!, count) }
            if n < 0 && errno == EINTR { continue }
            return n
        }
    }
}
