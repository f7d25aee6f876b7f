import Foundation

/// `file-source`: plays a sound file into the graph.
///
/// WAV files (`.wav`, `.wave`, `.rf64`) are read by audiograph's own reader, through a memory
/// map: RIFF and RF64, PCM 8/16/24/32-bit, float 32/64, mu-law and A-law,
/// WAVE_FORMAT_EXTENSIBLE, 1-8 channels, 8-384 kHz, strict about damaged headers (a data chunk
/// that claims more than the file holds is played as far as it goes, with one warning).
/// Every other file goes to libsndfile (FLAC, Ogg Vorbis and Opus, MP3, AIFF, CAF, …),
/// decoded on a thread of the node's own (`SoundFileDecoder`).
package final class FileSource: AudioNode {
    /// The `file-source` node type: its parameters, buses and factory.
    package static let descriptor = NodeDescriptor(
        type: "file-source",
        summary: "Plays a sound file: WAV (PCM 8-32-bit, float, mu/A-law; IMA and MS ADPCM, GSM 6.10 through libsndfile), FLAC, Ogg Vorbis/Opus, MP3, AIFF, CAF (libsndfile); 1-8 channels; 8-384 kHz.",
        role: .source,
        parameters: [
            ParameterSpec("path", .path, required: true, help: "sound file to play (WAV; FLAC, Ogg, MP3, AIFF, ... through libsndfile)"),
            ParameterSpec("start", .number(0...1e9), default: 0, unit: "s", help: "position to start playing from"),
            ParameterSpec("loop", .integer(1...1_000_000), default: 1, help: "times to play the file"),
        ],
        isReplaceableInput: true,
        make: { p throws(GraphError) in FileSource(p) })

    /// Warning code: the header's warnings (lying or ragged data chunk).
    static let warningHeader: Int32 = 1
    /// Warning code: float samples that are not numbers, played as silence.
    static let warningNonFinite: Int32 = 2
    /// Warning code: the decoder stopped on an error before the end of the file.
    static let warningDecoding: Int32 = 3

    let path: String
    let startSeconds: Double
    let loops: Int
    private var reader: WAVFileReader?
    /// Every file that is not WAV: decoded on a thread of the node's own.
    private var decoder: SoundFileDecoder?
    /// The file, counted among those being read while this source lives (a sink of any graph
    /// refuses to truncate it).
    private var beingRead: FilesBeingRead.Identity?
    private var position = 0
    private var loopsDone = 0
    private var startFrame = 0
    private var warned = false
    /// Float samples that are not numbers or infinite, and the first one's frame.
    private var nonFinite = (count: 0, firstFrame: 0)

    init(_ p: ResolvedParameters) {
        path = p.text("path")
        startSeconds = p.number("start")
        loops = p.integer("loop")
    }

    /// Refuses a path that is there but not a regular file (after its links): a folder, or a
    /// pipe or device, which the readers cannot seek in (a pipe's open would wait for a writer
    /// for ever, and reading one gave no audio). A path that is not there is the readers' to name.
    static func checkIsRegularFile(_ path: String) throws(EngineError) {
        let kind = PathKind(path)
        switch kind {
        case .regular, .missing: return  // a missing file: the readers say so, with the same words
        case .unreadable(let why):
            throw EngineError(.audioFile, "cannot open: \(why)", file: path, parameter: "path")
        case .directory:
            throw EngineError(.audioFile, "is a directory, not a sound file", file: path, parameter: "path",
                              suggestion: "`audiograph batch GRAPH DIR` runs a graph on every sound file in a folder")
        case .pipe, .socket, .special: break
        }
        throw EngineError(.audioFile, "is \(kind.noun), not a sound file it can seek in", file: path, parameter: "path",
                          suggestion: "save the audio to a file first, or push it in through audiograph serve or a stream-source")
    }

    /// Whether `path` is read by the WAV reader rather than libsndfile: named as a WAV and
    /// starting like one the reader knows, little-endian RIFF, RF64 or BW64 (an MP3 or FLAC
    /// renamed `.wav` goes to libsndfile, which knows it by its content, as does a big-endian
    /// RIFX; a file too short to tell goes to the WAV reader, which says why).
    static func isWAV(_ path: String) -> Bool {
        guard isNamedWAV(path) else { return false }
        guard let h = FileHandle(forReadingAtPath: path) else { return true }
        defer { try? h.close() }
        guard let head = try? h.read(upToCount: 4), head.count == 4 else { return true }
        return ["RIFF", "RF64", "BW64"].contains(String(decoding: head, as: UTF8.self))
    }

    /// Whether `path` has a WAV file's extension.
    static func isNamedWAV(_ path: String) -> Bool {
        ["wav", "wave", "rf64"].contains((path as NSString).pathExtension.lowercased())
    }

    deinit {
        if let beingRead { FilesBeingRead.closed(beingRead) }
    }

    package func open() throws(EngineError) {
        guard reader == nil && decoder == nil else { return }
        try Self.checkIsRegularFile(path)
        if beingRead == nil { beingRead = FilesBeingRead.opened(path) }
        if !Self.isWAV(path) && Self.isNamedWAV(path) {
            // Named .wav without a RIFF header: libsndfile may know it by its content (an MP3
            // renamed); if it does not, the WAV reader's complaint is the one to show.
            if let f = try? SndFile(path: path) { return decode(f) }
        } else if !Self.isWAV(path) {
            return decode(try Self.sndFile(path))
        }
        let r: WAVFileReader
        do {
            r = try WAVFileReader(path: path)
        } catch {
            // A WAV of a codec the reader does not have (IMA or MS ADPCM, GSM 6.10): libsndfile's.
            if WAVParseError.isCodecNeeded(error) { return decode(try Self.sndFile(path)) }
            var e = error
            e.parameter = "path"
            throw e
        }
        reader = r
        nonFinite = r.nonFiniteSamples()
        startFrame = min(Int(startSeconds * r.header.format.sampleRate), r.header.frameCount)
        position = startFrame
    }

    /// Plays `f` through a decoder thread, from the start time.
    private func decode(_ f: SndFile) {
        decoder = SoundFileDecoder(file: f)
        startFrame = f.frames > 0 ? min(Int(startSeconds * f.format.sampleRate), f.frames) : 0
    }

    /// `path` opened by libsndfile; its refusal names the parameter.
    private static func sndFile(_ path: String) throws(EngineError) -> SndFile {
        do {
            return try SndFile(path: path)
        } catch {
            var e = error
            e.parameter = "path"
            throw e
        }
    }

    package func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] {
        [reader?.header.format ?? decoder?.file.format ?? StreamFormat(sampleRate: 16000, channelCount: 1)]
    }

    package var durationFrames: Int64? {
        if let d = decoder { return d.file.frames > 0 ? Int64((d.file.frames - startFrame) * loops) : nil }
        return reader.map { Int64(($0.header.frameCount - startFrame) * loops) }
    }

    package func prepare(_ context: PrepareContext) throws(EngineError) {
        decoder?.written = context.renderReady
        decoder?.holdBlocks(of: context.maxFrames)
        decoder?.start(from: startFrame, loops: loops)
    }

    package func finish(_ reason: EndReason) throws(EngineError) {
        decoder?.stop()
    }

    package func process(_ io: inout ProcessIO) -> FlowStatus {
        if let decoder { return play(decoder, &io) }
        guard let reader else { return .endOfStream }
        let out = io.outputs[0]
        if !warned {
            warned = true
            if !reader.header.warnings.isEmpty {
                io.emit(NodeEvent(.warning, t: 0, code: Self.warningHeader))
            }
            if nonFinite.count > 0 {
                let first = Double(nonFinite.firstFrame) / reader.header.format.sampleRate
                io.emit(NodeEvent(.warning, t: 0, values: (0, Double(nonFinite.count), first, 0), code: Self.warningNonFinite))
            }
        }
        let total = reader.header.frameCount
        var filled = 0
        while filled < io.requestedFrames {
            if position >= total {
                loopsDone += 1
                if loopsDone >= loops || total == startFrame { break }
                position = startFrame
            }
            let n = min(io.requestedFrames - filled, total - position)
            reader.read(into: out, at: filled, start: position, count: n)
            position += n
            filled += n
        }
        out.frameLength = filled
        return filled < io.requestedFrames ? .endOfStream : .ok
    }

    /// Plays from the decoder's ring. A block the decoding thread has not written whole yet
    /// is not ready (the engine waits: the graph's pace is the decoder's when it is the
    /// slower), rather than cut the audio.
    private func play(_ decoder: SoundFileDecoder, _ io: inout ProcessIO) -> FlowStatus {
        let out = io.outputs[0]
        if decoder.ring.available < io.requestedFrames && !decoder.finished.load(ordering: .acquiring) && !io.isStopping {
            return .notReady
        }
        let filled = decoder.ring.read(into: out, at: 0, frames: io.requestedFrames)
        if filled > 0 { decoder.tookFrames() }
        out.frameLength = filled
        guard filled < io.requestedFrames else { return .ok }
        // The end (or a stop): the last block; say so if decoding stopped on an error.
        if decoder.error != nil {
            io.emit(NodeEvent(.warning, t: Double(out.sampleTime + Int64(filled)) / out.format.sampleRate,
                              code: Self.warningDecoding))
        }
        return .endOfStream
    }

    package func reset() {
        position = startFrame
        loopsDone = 0
        warned = false
        decoder?.start(from: startFrame, loops: loops)
    }

    package func publicEvent(_ raw: NodeEvent, nodeId: String) -> EngineEvent? {
        if raw.kind == .warning && raw.code == Self.warningNonFinite {
            return .warning(node: nodeId, message: NonFiniteSamples.warning(count: Int(raw.values.1), firstTime: raw.values.2, what: path))
        }
        if raw.kind == .warning && raw.code == Self.warningDecoding {
            return .warning(node: nodeId, message: "\(path): decoding stopped at \(String(format: "%.2f", raw.t)) s: \(decoder?.error ?? "error")")
        }
        if raw.kind == .warning, let r = reader {
            return .warning(node: nodeId, message: "\(path): \(r.header.warnings.joined(separator: "; "))")
        }
        return raw.standardEvent(nodeId: nodeId)
    }
}
