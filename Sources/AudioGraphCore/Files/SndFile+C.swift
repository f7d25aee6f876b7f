import CSndFile
import Foundation

/// The one place that calls libsndfile: opening a sound file of any format it reads
/// (WAV/RF64, FLAC, Ogg Vorbis and Opus, MP3, AIFF, CAF, …), reading float frames, seeking.
/// Not thread-safe: one thread at a time.
final class SndFile {
    private var handle: OpaquePointer
    private let path: String
    let format: StreamFormat
    /// Frames the file holds (libsndfile's count; an estimate for MP3).
    let frames: Int
    /// The container and encoding, as libsndfile names them ("FLAC (Free Lossless Audio Codec)").
    let formatName: String

    init(path: String) throws(EngineError) {
        var info = SF_INFO()
        guard let h = Self.open(path, &info) else {
            let reason = String(cString: sf_strerror(nil)).trimmingCharacters(in: .whitespacesAndNewlines)
            throw EngineError(.audioFile, "\(path): cannot read it as sound: \(reason)",
                              suggestion: "audiograph reads WAV, and FLAC, Ogg Vorbis/Opus, MP3, AIFF, CAF and more through libsndfile")
        }
        guard info.channels >= 1 && info.channels <= 8 else {
            sf_close(h)
            throw EngineError(.audioFile, "\(path): unsupported channel count \(info.channels) (1-8)")
        }
        guard info.samplerate >= 8000 && info.samplerate <= 384_000 else {
            sf_close(h)
            throw EngineError(.audioFile, "\(path): unsupported sample rate \(info.samplerate) Hz (8000-384000)")
        }
        handle = h
        self.path = path
        format = StreamFormat(sampleRate: Double(info.samplerate), channelCount: Int(info.channels))
        frames = Int(max(0, info.frames))
        var major = SF_FORMAT_INFO()
        major.format = info.format & Int32(SF_FORMAT_TYPEMASK)
        if sf_command(h, Int32(SFC_GET_FORMAT_INFO), &major, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0, let name = major.name {
            formatName = String(cString: name)
        } else {
            formatName = "sound file"
        }
    }

    /// `path` opened for reading as float frames, integer data scaled to [-1, 1) as the WAV
    /// reader does (x / 32768 for 16 bits); nil when libsndfile cannot read it.
    private static func open(_ path: String, _ info: inout SF_INFO) -> OpaquePointer? {
        guard let h = sf_open(path, Int32(SFM_READ), &info) else { return nil }
        _ = sf_command(h, Int32(SFC_SET_NORM_FLOAT), nil, Int32(SF_TRUE))
        return h
    }

    deinit { sf_close(handle) }

    /// The frame the next read starts at.
    private(set) var position = 0

    /// Reads up to `count` interleaved frames; fewer at the end (or on a decoding error).
    func read(into p: UnsafeMutablePointer<Float>, count: Int) -> Int {
        let n = Int(sf_readf_float(handle, p, sf_count_t(count)))
        position += max(0, n)
        return n
    }

    /// Moves to frame `frame`; false when the file cannot get there. A codec that cannot
    /// seek (GSM 6.10 in a WAV) gets there by decoding from where it is, or from the start
    /// (the file opened again) when `frame` is behind; where the file already is, nothing is asked.
    func seek(to frame: Int) -> Bool {
        if frame == position { return true }
        if sf_seek(handle, sf_count_t(frame), SEEK_SET) >= 0 {
            position = frame
            return true
        }
        if frame < position {
            var info = SF_INFO()
            guard let again = Self.open(path, &info) else { return false }
            // The same sound, not a file put in its place since.
            guard Int(info.channels) == format.channelCount, Double(info.samplerate) == format.sampleRate else {
                sf_close(again)
                return false
            }
            sf_close(handle)
            handle = again
            position = 0
        }
        let chunk = 4096
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: chunk * format.channelCount)
        defer { scratch.deallocate() }
        while position < frame {
            guard read(into: scratch, count: min(chunk, frame - position)) > 0 else { return false }
        }
        return true
    }

    /// The decoding error after a short read, if there was one.
    var error: String? {
        sf_error(handle) == 0 ? nil : String(cString: sf_strerror(handle))
    }
}
