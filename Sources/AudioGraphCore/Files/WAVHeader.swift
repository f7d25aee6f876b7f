/// What a WAV file's header says, after checking it against the file's real size.
///
/// Parsing never trusts a size field: every chunk is bounded by the bytes actually
/// present, and the data chunk is cut to whole frames. Problems that leave playable
/// samples (a data chunk that claims more than the file holds, a ragged last frame)
/// become `warnings`; anything else is an error naming what is wrong.
struct WAVHeader: Equatable {
    /// How samples are stored.
    enum Encoding: Equatable {
        case int(bits: Int)       // 8 (unsigned), 16, 24, 32 (signed, little endian)
        case float(bits: Int)     // 32 or 64
        case muLaw, aLaw          // G.711, 8 bits

        var bytes: Int {
            switch self {
            case .int(let b), .float(let b): return b / 8
            case .muLaw, .aLaw: return 1
            }
        }

        var name: String {
            switch self {
            case .int(let b): return "\(b)-bit PCM"
            case .float(let b): return "\(b)-bit float"
            case .muLaw: return "mu-law"
            case .aLaw: return "A-law"
            }
        }
    }

    var format: StreamFormat
    var encoding: Encoding
    /// Byte offset of the first sample.
    var dataOffset: Int
    /// Whole frames present.
    var frameCount: Int
    /// Bytes per frame.
    var blockAlign: Int
    var warnings: [String] = []

    static let rateRange = 8000...384_000
    static let channelRange = 1...8

    /// Parses the header in `bytes` (the whole file). Throws a message saying what is wrong.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(WAVParseError) -> WAVHeader {
        let size = bytes.count
        func u32(_ at: Int) -> Int { Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))) }
        func u16(_ at: Int) -> Int { Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self))) }
        func tag(_ at: Int) -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<at + 4]), as: UTF8.self)
        }

        guard size >= 12 else { throw WAVParseError("not a WAV file: only \(size) bytes") }
        let riff = tag(0)
        // BW64 (EBU Tech 3285-s5, ITU-R BS.2088) is RF64 under another name.
        let is64 = riff == "RF64" || riff == "BW64"
        guard riff == "RIFF" || is64, tag(8) == "WAVE" else {
            throw WAVParseError("not a WAV file: no RIFF/WAVE header")
        }
        var fmt: (offset: Int, size: Int)?
        var data: (offset: Int, size: Int)?
        var ds64DataSize: Int?
        var warnings: [String] = []
        var at = 12
        while at + 8 <= size {
            let id = tag(at)
            let declared = u32(at + 4)
            let body = at + 8
            let available = size - body
            switch id {
            case "fmt ":
                guard declared <= available else {
                    throw WAVParseError("fmt chunk claims \(declared) bytes but only \(available) remain")
                }
                fmt = (body, declared)
            case "ds64":
                if declared >= 16 && declared <= available {
                    let lo = u32(body + 8), hi = u32(body + 12)
                    ds64DataSize = hi << 32 | lo
                }
            case "data":
                var claimed = declared
                if is64 && declared == 0xFFFF_FFFF, let big = ds64DataSize { claimed = big }
                // A writer that never came back to its header (a recorder killed mid-take, one
                // writing to a pipe) leaves the data chunk at 0 bytes and the RIFF size ending at
                // or before the audio: the audio is the rest of the file (as GStreamer's
                // wavparse reads it). An empty data chunk inside a finished RIFF stays empty.
                if declared == 0 && available > 0 && riff == "RIFF" && u32(4) + 8 <= body {
                    warnings.append("the header was never finished (its data chunk says 0 bytes, yet \(available) follow): "
                                    + "playing the rest of the file")
                    claimed = available
                } else if claimed > available {
                    warnings.append("data chunk claims \(claimed) bytes but the file holds \(available); playing what is there")
                    claimed = available
                }
                data = (body, claimed)
            default: break
            }
            if data != nil && fmt != nil { break }
            guard declared <= available else { break }
            at = body + declared + (declared & 1)
        }
        guard let fmt else { throw WAVParseError("no fmt chunk") }
        guard fmt.size >= 16 else { throw WAVParseError("fmt chunk too short (\(fmt.size) bytes, need 16)") }
        var formatTag = u16(fmt.offset)
        let channels = u16(fmt.offset + 2)
        let rate = u32(fmt.offset + 4)
        let blockAlign = u16(fmt.offset + 12)
        let bits = u16(fmt.offset + 14)
        if formatTag == 0xFFFE {
            guard fmt.size >= 40 else { throw WAVParseError("WAVE_FORMAT_EXTENSIBLE fmt chunk too short (\(fmt.size) bytes)") }
            formatTag = u16(fmt.offset + 24)  // first two bytes of the sub-format GUID
        }
        let encoding: Encoding
        switch (formatTag, bits) {
        case (1, 8), (1, 16), (1, 24), (1, 32): encoding = .int(bits: bits)
        case (3, 32), (3, 64): encoding = .float(bits: bits)
        case (7, 8): encoding = .muLaw
        case (6, 8): encoding = .aLaw
        case (1, _), (3, _), (6, _), (7, _):
            throw WAVParseError("unsupported sample size: \(bits) bits for format \(formatTag)")
        default:
            throw WAVParseError(WAVParseError.codecNeeded + " (format tag \(formatTag))")
        }
        guard channels > 0 else { throw WAVParseError("header says 0 channels") }
        guard channelRange.contains(channels) else {
            throw WAVParseError("unsupported channel count \(channels) (1...8)")
        }
        guard rate > 0 else { throw WAVParseError("header says sample rate 0") }
        guard rateRange.contains(rate) else {
            throw WAVParseError("unsupported sample rate \(rate) Hz (8000...384000)")
        }
        let frameBytes = channels * encoding.bytes
        guard blockAlign == frameBytes else {
            throw WAVParseError("block align \(blockAlign) does not match \(channels) channels of \(encoding.name) (\(frameBytes))")
        }
        guard let data else { throw WAVParseError("no data chunk") }
        let frames = data.size / frameBytes
        if data.size % frameBytes != 0 {
            warnings.append("data chunk ends with a partial frame (\(data.size % frameBytes) bytes ignored)")
        }
        return WAVHeader(format: StreamFormat(sampleRate: Double(rate), channelCount: channels),
                         encoding: encoding, dataOffset: data.offset, frameCount: frames,
                         blockAlign: frameBytes, warnings: warnings)
    }
}

/// Why a WAV header was refused.
struct WAVParseError: Error {
    var message: String
    init(_ message: String) { self.message = message }

    /// How the refusal of a WAV whose samples need a codec (IMA or MS ADPCM, GSM 6.10, ...)
    /// begins: the file source hands such a file to libsndfile, which has the codecs.
    static let codecNeeded = "a WAV encoding the WAV reader does not decode"

    /// Whether `error` (from opening a ``WAVFileReader``) is that refusal.
    static func isCodecNeeded(_ error: EngineError) -> Bool { error.message.hasPrefix(codecNeeded) }
}
