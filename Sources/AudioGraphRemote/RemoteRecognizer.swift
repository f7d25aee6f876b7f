import AudioGraphClient
import AudioGraphCore
import Foundation
import Synchronization

/// `remote-recognizer`: the recognizer's work done by an `audiograph serve` (SpeechKit's
/// architecture: the device captures, segments and plays; the server recognises).
///
///     render thread ──► FrameRing ──► sender task ──► WebSocket ──► server's graph
///                                     events task ◄── partials, finals ◄──┘ ──► delivery thread
///
/// Its input (16 kHz mono after the local vad and end of speech, as a recognizer's) is
/// streamed whole to a session of the server's `graph` (by default `dictation`), which
/// segments and decodes it as the local graph would: the same audio gives the same finals,
/// with word times on the same clock (the session starts with the run). Partials and finals
/// come back as this node's events. With file input a full ring makes the graph wait; with
/// live input audio is dropped and counted. A server that is not there fails `prepare`
/// (one error line); a connection lost mid-run is an `error` event naming the server, and
/// the run ends.
public final class RemoteRecognizer: AudioNode, @unchecked Sendable {
    /// The `remote-recognizer` node type.
    public static let descriptor = NodeDescriptor(
        type: "remote-recognizer",
        summary: "Recognition done by an audiograph serve (ws://HOST:PORT): the recognizer's events, the work on a server.",
        role: .sink,
        parameters: [
            ParameterSpec("server", .string, help: "the server's URL, ws://HOST:PORT or wss://HOST:PORT"),
            ParameterSpec("graph", .string, default: "dictation", help: "the server's graph to recognise with"),
            ParameterSpec("app", .string, help: "app id, for a server with --keys"),
            ParameterSpec("key", .string, help: "app key, for a server with --keys"),
            ParameterSpec("grammar", .path, help: "JSGF grammar file, sent to the server (replaces the graph's search)"),
            ParameterSpec("partials", .number(0...10), default: 0.25, unit: "s", help: "seconds between partial results (0: none)"),
            ParameterSpec("alternatives", .integer(0...10), default: 3, help: "n-best alternatives in final results"),
            ParameterSpec("timeout", .number(0.5...120), default: 10, unit: "s", help: "to connect, and for the last results after the audio"),
        ],
        inputs: .fixed(1),
        make: { p throws(GraphError) in try RemoteRecognizer(p) })

    let server: String
    let endpoint: ServerEndpoint
    var options: RemoteRecognitionSession.Options
    let grammarPath: String?
    let timeout: Double
    private var ring = FrameRing(channels: 1, capacity: 1)
    private var isLive = false
    private var renderReady = Readiness()
    private var eventsReady = Wakeup()
    private var session: RemoteRecognitionSession?
    private let pending = Mutex<[EngineEvent]>([])
    private let inputEnded = Atomic<Bool>(false)
    private let failed = Atomic<Bool>(false)
    private let lost = Atomic<Int>(0)
    private var sender: Task<Void, Never>?
    private var receiver: Task<Void, Never>?
    private let sent = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    init(_ p: ResolvedParameters) throws(GraphError) {
        server = p.string("server") ?? ""
        guard let url = URL(string: server), ["ws", "wss"].contains(url.scheme ?? ""), url.host != nil else {
            throw p.error("server", "expected ws://HOST:PORT or wss://HOST:PORT, got \"\(server)\"")
        }
        timeout = p.number("timeout")
        var app: (String, String)?
        if let id = p.string("app") { app = (id, p.string("key") ?? "") }
        endpoint = ServerEndpoint(url: url, app: app, timeout: timeout, attempts: 2)
        options = RemoteRecognitionSession.Options(graph: p.text("graph"), partials: p.number("partials"),
                                                   alternatives: p.integer("alternatives"))
        grammarPath = p.string("grammar")
    }

    public func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] { [] }

    public func acceptedFormat(forInput bus: Int, offered: StreamFormat, all: [StreamFormat]) -> StreamFormat {
        StreamFormat(sampleRate: 16000, channelCount: 1)
    }

    /// Connects and starts the server's session (before the run: a server that is not there,
    /// a wrong key or an unknown graph fail here, with one line).
    public func prepare(_ context: PrepareContext) throws(EngineError) {
        isLive = context.isLive
        renderReady = context.renderReady
        eventsReady = context.eventsReady
        ring = FrameRing(channels: 1, capacity: 16000 * 5)
        options.sampleRate = Int(context.inputFormats[0].sampleRate)
        if let grammarPath {
            guard let text = try? String(contentsOfFile: grammarPath, encoding: .utf8) else {
                throw EngineError(.model, "cannot read the grammar \(grammarPath)", parameter: "grammar")
            }
            options.grammar = text
        }
        let s = RemoteRecognitionSession(endpoint, options: options)
        let started = Mutex<Error?>(nil)
        let wait = DispatchSemaphore(value: 0)
        Task.detached {
            do { try await s.start() } catch { started.withLock { $0 = error } }
            wait.signal()
        }
        wait.wait()
        if let e = started.withLock({ $0 }) {
            let why = (e as? RemoteError).map { $0.code == "key" ? "the server refused the app key (app/key parameters)" : $0.message } ?? "\(e)"
            throw EngineError(.server, "speech server \(server): \(why)", suggestion: "start one with `audiograph serve`, or check --server")
        }
        session = s
        startTasks(s)
    }

    private func startTasks(_ s: RemoteRecognitionSession) {
        let ring = self.ring
        let readiness = renderReady
        let wake = eventsReady
        sender = Task.detached { [self] in
            var block = [Float](repeating: 0, count: 1600)
            while true {
                let n = block.withUnsafeMutableBufferPointer { ring.read(interleaved: $0.baseAddress!, frames: 1600) }
                if n > 0 {
                    readiness.signal()
                    do { try await s.append(Array(block[0..<n])) } catch { break }
                    continue
                }
                if inputEnded.load(ordering: .acquiring) && ring.available == 0 { break }
                try? await Task.sleep(for: .milliseconds(5))
            }
            try? await s.stop()
            sent.signal()
        }
        receiver = Task.detached { [self] in
            do {
                for try await e in s.events {
                    if let event = convert(e) {
                        pending.withLock { $0.append(event) }
                        wake.signal()  // the delivery thread takes it now, not at its next round
                    }
                }
            } catch {
                let why = (error as? RemoteError)?.message ?? "\(error)"
                failed.store(true, ordering: .releasing)
                pending.withLock { $0.append(.error(EngineError(.server, "speech server \(server): \(why)"))) }
                readiness.signal()
            }
            done.signal()
        }
    }

    /// The server's events as this node's: partials and finals (its vad's are the local vad's).
    private func convert(_ e: RemoteEvent) -> EngineEvent? {
        switch e {
        case .partial(let u, let text): return .partial(node: "", utterance: u, text: text)
        case .final(let r):
            return .final(node: "", result: RecognitionResult(
                utterance: r.utterance, text: r.text, start: r.start, end: r.end, confidence: r.confidence,
                alternatives: r.alternatives.map { .init(text: $0.text, score: Int($0.score)) },
                words: r.words.map { .init(word: $0.word, start: $0.start, end: $0.end, confidence: $0.confidence) }))
        case .warning(let w): return .warning(node: "", message: "speech server: " + w)
        default: return nil
        }
    }

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        if failed.load(ordering: .acquiring) { return .failed(1) }
        let input = io.inputs[0]
        if input.frameLength > 0 {
            if ring.space < input.frameLength {
                if !isLive { return .notReady }  // file input: wait for the sender (nothing lost)
                lost.add(input.frameLength - ring.space, ordering: .relaxed)
            }
            ring.write(input, frames: min(input.frameLength, ring.space))
        }
        if io.inputsEnded { return .endOfStream }
        return .ok
    }

    public func failure(_ code: Int32) -> EngineError {
        EngineError(.server, "speech server \(server): the connection was lost mid-run")
    }

    /// The audio is over: the server finishes the utterance in flight; its last results are
    /// waited for (at most `timeout` s).
    public func finish(_ reason: EndReason) throws(EngineError) {
        guard let session else { return }
        if reason == .cancelled { Task.detached { await session.cancel() } }
        inputEnded.store(true, ordering: .releasing)
        if sent.wait(timeout: .now() + timeout) == .timedOut || done.wait(timeout: .now() + timeout) == .timedOut {
            receiver?.cancel()
            throw EngineError(.server, "speech server \(server): no last results within \(Int(timeout)) s")
        }
        self.session = nil
        let n = lost.load(ordering: .relaxed)
        if n > 0 { pending.withLock { $0.append(.overrun(node: "", lost: n)) } }
    }

    public func abandon() { Task.detached { [session] in await session?.cancel() } }

    public func takeEvents(nodeId: String) -> [EngineEvent] {
        pending.withLock { all in
            defer { all.removeAll() }
            return all.map { $0.withNode(nodeId) }
        }
    }
}

extension EngineEvent {
    /// The event with its node id set (events made off the render thread know no id).
    func withNode(_ id: String) -> EngineEvent {
        switch self {
        case .partial(_, let u, let t): .partial(node: id, utterance: u, text: t)
        case .final(_, let r): .final(node: id, result: r)
        case .warning(_, let m): .warning(node: id, message: m)
        case .overrun(_, let n): .overrun(node: id, lost: n)
        case .error(let e): .error(e.atNode(id))
        default: self
        }
    }
}
