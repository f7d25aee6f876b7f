/// `file-source`: plays a WAV file into the graph.
///
/// Reads RIFF and RF64 WAV: PCM 8/16/24/32-bit, float 32/64, mu-law and A-law,
/// WAVE_FORMAT_EXTENSIBLE, 1-8 channels, 8-384 kHz. A data chunk that claims more than the
/// file holds is played as far as it goes, with one warning.
public final class FileSource: AudioNode {
    public static let descriptor = NodeDescriptor(
        type: "file-source",
        summary: "Plays a WAV file (PCM 8/16/24/32-bit, float 32/64, mu/A-law; 1-8 channels; 8-384 kHz).",
        role: .source,
        parameters: [
            ParameterSpec("path", .path, required: true, help: "WAV file to play"),
            ParameterSpec("start", .number(0...1e9), default: 0, unit: "s", help: "position to start playing from"),
            ParameterSpec("loop", .integer(1...1_000_000), default: 1, help: "times to play the file"),
        ],
        isReplaceableInput: true,
        make: { p throws(GraphError) in FileSource(p) })

    /// Warning code: the header's warnings (lying or ragged data chunk).
    static let warningHeader = 1.0
    /// Warning code: float samples that are not numbers, played as silence.
    static let warningNonFinite = 2.0

    let path: String
    let startSeconds: Double
    let loops: Int
    private var reader: WAVFileReader?
    private var position = 0
    private var loopsDone = 0
    private var startFrame = 0
    private var warned = false
    /// Float samples that are not numbers or infinite, and the first one's frame.
    private var nonFinite = (count: 0, firstFrame: 0)

    init(_ p: ResolvedParameters) {
        path = p.string("path") ?? ""
        startSeconds = p.number("start")
        loops = p.integer("loop", 1)
    }

    public func open() throws(EngineError) {
        let r: WAVFileReader
        do {
            r = try WAVFileReader(path: path)
        } catch {
            var e = error
            e.parameter = "path"
            throw e
        }
        reader = r
        nonFinite = r.nonFiniteSamples()
        startFrame = min(Int(startSeconds * r.header.format.sampleRate), r.header.frameCount)
        position = startFrame
    }

    public func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] {
        [reader?.header.format ?? StreamFormat(sampleRate: 16000, channelCount: 1)]
    }

    public var durationFrames: Int64? {
        reader.map { Int64(($0.header.frameCount - startFrame) * loops) }
    }

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        guard let reader else { return .endOfStream }
        let out = io.outputs[0]
        if !warned {
            warned = true
            if !reader.header.warnings.isEmpty {
                io.emit(NodeEvent(.warning, t: 0, values: (Self.warningHeader, 0, 0, 0)))
            }
            if nonFinite.count > 0 {
                let first = Double(nonFinite.firstFrame) / reader.header.format.sampleRate
                io.emit(NodeEvent(.warning, t: 0, values: (Self.warningNonFinite, Double(nonFinite.count), first, 0)))
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

    public func reset() {
        position = startFrame
        loopsDone = 0
        warned = false
    }

    public func publicEvent(_ raw: NodeEvent, nodeId: String) -> EngineEvent? {
        if raw.kind == .warning && raw.values.0 == Self.warningNonFinite {
            return .warning(node: nodeId, message: NonFiniteSamples.warning(count: Int(raw.values.1), firstTime: raw.values.2, what: path))
        }
        if raw.kind == .warning, let r = reader {
            return .warning(node: nodeId, message: "\(path): \(r.header.warnings.joined(separator: "; "))")
        }
        return raw.standardEvent(nodeId: nodeId)
    }
}
