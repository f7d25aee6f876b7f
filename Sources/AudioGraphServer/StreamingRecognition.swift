import AudioGraph
import AudioGraphCore
import Foundation
import Synchronization

/// One recognition stream of the server: a graph of the catalogue with a `stream-source` in
/// place of its input, fed with the client's PCM as it arrives; its events go to `onEvent`
/// on the engine's delivery thread (or, for a session in a process of its own, the thread
/// reading that process). Every protocol (Wyoming, vosk, audiograph) runs its sessions
/// through this.
final class StreamingRecognition: @unchecked Sendable {
    /// What a client may set on a session.
    struct Options: Codable {
        var graph = "transcribe"
        /// JSGF grammar text (replaces the graph's search).
        var grammar: String?
        /// Words and phrases to add to the recognizer's language model.
        var vocabulary: [String] = []
        /// Seconds between partial results (0: none).
        var partials: Double?
        /// N-best alternatives per final.
        var alternatives: Int?
        /// End of speech: `long`, `short` (a command), or `none` (only the client ends).
        var endOfSpeech: String?
        /// The recognizer's key phrase (a wake word).
        var keyphrase: String?
        /// Assistant mode: the recognizer waits for this phrase, recognises one command,
        /// waits again, and the session runs until the client ends it.
        var wakeWord: String?
        /// With `wakeWord`: seconds after it within which a command must begin.
        var commandTimeout: Double?
        /// The recognizer's `session-calibration`: confidences follow the session's own share
        /// of right words; nil: the graph's.
        var sessionCalibration: Bool?
        /// The client starts a new session if the server ends this one (a thin device's
        /// endless stream): a draining server ends it at a pause before its first utterance too.
        var reconnects = false
    }

    /// Where the graph runs: here, or in a session worker process (`serve --isolate`).
    private enum Backend {
        case local(RecognitionSession, StreamSource)
        case worker(SessionWorker)
    }
    private let backend: Backend
    let rate: Int
    let channels: Int
    let width: Int
    /// The grammar and vocabulary written for the recognizer to read (removed at the end).
    private var files: [URL] = []
    private let bytesPushed = Atomic<Int>(0)
    /// When the session began, in monotonic seconds.
    let began = monotonicSeconds()

    /// Builds and starts the session in a worker process of its own (``SessionWorker``):
    /// a crash of its graph ends this session only. Throws as the in-process init does.
    init(pool: WorkerPool, catalog: ServerGraphs, options: Options, rate: Int, channels: Int, width: Int,
         onEvent: @escaping @Sendable (EngineEvent) -> Void) throws {
        _ = try Self.entry(catalog, options.graph)  // a client's unknown name starts no process
        try Self.checkFormat(rate: rate, channels: channels, width: width)
        self.rate = rate
        self.channels = channels
        self.width = width
        backend = .worker(try SessionWorker(pool: pool, options: options, rate: rate, channels: channels, width: width, onEvent: onEvent))
    }

    /// The catalogue's graph `name`, or the client's error naming the graphs there are.
    static func entry(_ catalog: ServerGraphs, _ name: String) throws -> ServerGraphs.Entry {
        guard let entry = catalog.entries[name] else {
            if let why = catalog.leftOut[name] {
                throw ServerError("graph \"\(name)\" is not served: \(why); this server has \(catalog.names.joined(separator: ", "))")
            }
            throw ServerError("unknown graph \"\(name)\"; this server has \(catalog.names.joined(separator: ", "))")
        }
        return entry
    }

    static func checkFormat(rate: Int, channels: Int, width: Int) throws {
        guard (8000...192_000).contains(rate), (1...8).contains(channels), width == 2 || width == 4 else {
            throw ServerError("audio format out of range: rate \(rate) (8000-192000), width \(width) (2 or 4 bytes), channels \(channels) (1-8)")
        }
    }

    /// Builds and starts the session in this process. Throws ``ServerError`` for an unknown
    /// graph, or the engine's error (a grammar that does not compile, a model that does not load).
    init(catalog: ServerGraphs, options: Options, rate: Int, channels: Int, width: Int,
         onEvent: @escaping @Sendable (EngineEvent) -> Void) throws {
        let entry = try Self.entry(catalog, options.graph)
        try Self.checkFormat(rate: rate, channels: channels, width: width)
        self.rate = rate
        self.channels = channels
        self.width = width
        var g = entry.graph
        let input = try GraphEdits.stream(rate: rate, channels: channels, in: &g, registry: .builtin)
        let asr = g.nodes.first { $0.type == "recognizer" }!.id
        func set(_ node: String, _ param: String, _ value: ParameterValue) {
            if let i = g.index(of: node) { g.nodes[i].params[param] = value }
        }
        // Files written for the recognizer: the session's own once it exists, removed if not.
        var written: [URL] = [], kept = false
        defer { if !kept { for url in written { try? FileManager.default.removeItem(at: url) } } }
        func write(_ text: String, _ suffix: String) throws -> String {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("audiograph-\(UUID().uuidString).\(suffix)")
            written.append(url)  // removed if the session is not made, a part a full disk took too
            do { try Data(text.utf8).write(to: url) } catch {
                // The server's fault, not the client's request: an error of the session.
                throw EngineError(.io, "cannot write the session's \(suffix == "gram" ? "grammar" : "vocabulary") for the recognizer: "
                                  + FileFailure.reason(error), file: url.path)
            }
            return url.path
        }
        if let grammar = options.grammar {
            set(asr, "grammar", .string(try write(grammar, "gram")))
            g.nodes[g.index(of: asr)!].params["keyphrase"] = nil
            // A grammar is built from the dictionary as it stands at the load: its vocabulary
            // goes in as the parameter's file, read first.
            if !options.vocabulary.isEmpty { set(asr, "vocabulary", .string(try write(options.vocabulary.joined(separator: "\n") + "\n", "txt"))) }
        }
        if let k = options.keyphrase { set(asr, "keyphrase", .string(k)) }
        if let p = options.partials { set(asr, "partials", .number(p)) }
        if let a = options.alternatives { set(asr, "alternatives", .number(Double(a))) }
        if let c = options.sessionCalibration { set(asr, "session-calibration", .bool(c)) }
        if let w = options.wakeWord {
            // The assistant's loop: command after command, never ended by a silence.
            set(asr, "wake-word", .string(w))
            set(asr, "continuous", true)
            g.nodes[g.index(of: asr)!].params["keyphrase"] = nil
            if let t = options.commandTimeout { set(asr, "command-timeout", .number(t)) }
            if let eos = g.nodes.first(where: { $0.type == "end-of-speech" }) { set(eos.id, "no-speech-timeout", 0) }
        }
        if let mode = options.endOfSpeech, let eos = g.nodes.first(where: { $0.type == "end-of-speech" }) {
            if mode == "none" {
                set(eos.id, "mode", "long")
                set(eos.id, "no-speech-timeout", 0)
            } else {
                set(eos.id, "mode", .string(mode))
            }
        }
        let session = try RecognitionSession(graph: g)
        (files, kept) = (written, true)
        backend = .local(session, session.engine.node(input) as! StreamSource)
        if !options.vocabulary.isEmpty && options.grammar == nil { try session.addVocabulary(options.vocabulary.map { VocabularyEntry($0) }) }
        session.onEvent(onEvent)
        try session.start()
    }

    deinit {
        for url in files { try? FileManager.default.removeItem(at: url) }
    }

    /// Seconds of audio pushed so far.
    var audioSeconds: Double { Double(bytesPushed.load(ordering: .relaxed) / (width * channels)) / Double(rate) }

    /// Pushes interleaved little-endian PCM (waits while the graph is a buffer behind).
    /// False once the session has ended (its graph ended by itself: end of speech, an error).
    @discardableResult
    func push(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytesPushed.add(bytes.count, ordering: .relaxed)
        switch backend {
        case .local(_, let source): return source.append(pcm: bytes, width: width)
        case .worker(let w): return w.send(.audio, bytes)
        }
    }

    /// Waits until what was pushed has been decoded and its events delivered, as far as the
    /// graph goes without more audio (at most 2 s).
    func waitUntilHeard() {
        switch backend {
        case .local(let session, _): session.engine.waitForDelivery(through: audioSeconds)
        case .worker(let w): w.waitUntilHeard()
        }
    }

    /// The end of the client's audio: the utterance in flight is finished and delivered.
    func finishAudio() {
        switch backend {
        case .local(_, let source): source.endAudio()
        case .worker(let w): w.send(.finish)
        }
    }

    /// Ends the audio as `stop()` does: what was pushed is delivered, the reason is `stopped`.
    func stop() {
        switch backend {
        case .local(let session, _): try? session.stop()
        case .worker(let w): w.send(.stop)
        }
    }

    /// Discards what is pending and ends at once.
    func cancel() {
        switch backend {
        case .local(let session, _): try? session.cancel()
        case .worker(let w): w.send(.cancel)
        }
    }

    /// Whether the session has ended (by itself or as asked).
    var hasEnded: Bool {
        switch backend {
        case .local(let session, _): session.engine.waitUntilEnded(timeout: 0) != nil
        case .worker(let w): w.hasEnded
        }
    }

    /// Blocks until the session has ended; its reason.
    func waitUntilEnded() -> EndReason {
        switch backend {
        case .local(let session, _): session.engine.waitUntilEnded()
        case .worker(let w): w.waitUntilEnded()
        }
    }
}
