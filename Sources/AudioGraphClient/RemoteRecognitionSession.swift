import Foundation
import Synchronization

/// A recognition session done by an `audiograph serve` (SpeechKit's `SKRecognizer`, the
/// shape of the engine's `RecognitionSession`): start with options, feed audio, stop (finish
/// and deliver) or cancel (discard); partials and finals come as a typed async stream.
///
/// ```swift
/// let server = ServerEndpoint(url: URL(string: "ws://speech.local:2700")!, app: ("kiosk", "s3cret"))
/// let session = RemoteRecognitionSession(server, options: .init(graph: "dictation", sampleRate: 16000))
/// try await session.start()
/// Task { for chunk in microphoneChunks { try await session.append(chunk) }; try await session.stop() }
/// for try await event in session.events {
///     if case .final(let r) = event { print(r.text, r.confidence) }
/// }
/// ```
///
/// Each session has a connection of its own. A connection that drops fails the session in
/// flight: `events` throws a ``RemoteError`` with code `connection-lost`; the next session
/// connects again (with backoff), as SpeechKit's networking does.
public final class RemoteRecognitionSession: Sendable {
    /// What to ask the server for.
    public struct Options: Sendable {
        /// The server's graph (`dictation`, `command`, `transcribe`, …).
        public var graph: String
        /// The audio you will append: rate and interleaved channels (the server converts).
        public var sampleRate: Int
        public var channels: Int
        /// A JSGF grammar (text) to recognise against instead of the graph's own search.
        public var grammar: String?
        /// Words and phrases to add to the recognizer's vocabulary.
        public var vocabulary: [String]
        /// End of speech: `long`, `short` (a command: the session ends after it), `none`.
        public var endOfSpeech: String?
        /// Seconds between partial results (0: none); nil: the graph's.
        public var partials: Double?
        /// N-best alternatives per final.
        public var alternatives: Int?
        /// Assistant mode: wait for this phrase, recognise one command, wait again (the
        /// session reports `.wake` and `.assistant` events and runs until stopped).
        public var wakeWord: String?
        /// With `wakeWord`: seconds after the wake word within which a command must begin.
        public var commandTimeout: Double?
        /// Whether word confidences follow the session's own share of right words (the
        /// recognizer's `session-calibration`, for a long dictation by one talker); nil: the
        /// graph's (off in the shipped graphs).
        public var sessionCalibration: Bool?
        /// Whether you start a new session when the server ends this one (an endless stream, a
        /// thin device's): a draining server (shutting down) then ends it at its next pause
        /// even before its first utterance, instead of after its 30 s, and you connect again,
        /// to another server.
        public var reconnects: Bool

        /// Options for `graph`, audio at `sampleRate` Hz with `channels` channels.
        public init(graph: String = "dictation", sampleRate: Int = 16000, channels: Int = 1, grammar: String? = nil,
                    vocabulary: [String] = [], endOfSpeech: String? = nil, partials: Double? = nil, alternatives: Int? = nil,
                    wakeWord: String? = nil, commandTimeout: Double? = nil, sessionCalibration: Bool? = nil,
                    reconnects: Bool = false) {
            self.graph = graph
            self.sampleRate = sampleRate
            self.channels = channels
            self.grammar = grammar
            self.vocabulary = vocabulary
            self.endOfSpeech = endOfSpeech
            self.partials = partials
            self.alternatives = alternatives
            self.wakeWord = wakeWord
            self.commandTimeout = commandTimeout
            self.sessionCalibration = sessionCalibration
            self.reconnects = reconnects
        }
    }

    /// The session's events in stream order; it finishes after `.end`, or throws a
    /// ``RemoteError`` (the connection dropped, the server refused).
    public let events: AsyncThrowingStream<RemoteEvent, Error>
    private let continuation: AsyncThrowingStream<RemoteEvent, Error>.Continuation
    private let endpoint: ServerEndpoint
    private let options: Options
    private let link = Mutex<SocketLink?>(nil)
    /// Set while ``start()`` connects and once it has: a session is one connection. A second
    /// start opened another and read both into the one `events`; a start that failed may be
    /// tried again.
    private let starting = Mutex(false)

    /// A session with `server`; nothing is sent until ``start()``.
    public init(_ server: ServerEndpoint, options: Options = Options()) {
        endpoint = server
        self.options = options
        (events, continuation) = AsyncThrowingStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Connects, starts the session and returns once the server has taken it. Throws a
    /// ``RemoteError``: `connection`, `busy`, `key`, `bad-request` (options), `session` (a
    /// grammar that does not compile), `state` (started already; a start that failed may be
    /// tried again).
    public func start() async throws {
        guard starting.withLock({ let was = $0; $0 = true; return !was }) else {
            throw RemoteError(code: "state", message: "start: this session has started already (make a new session for another)")
        }
        let l: SocketLink
        do {
            l = try await SocketLink.open(endpoint)
        } catch {
            starting.withLock { $0 = false }
            throw error
        }
        var start: [String: Any] = ["type": "start", "graph": options.graph, "rate": options.sampleRate, "channels": options.channels]
        if let g = options.grammar { start["grammar"] = g }
        if !options.vocabulary.isEmpty { start["vocabulary"] = options.vocabulary }
        if let e = options.endOfSpeech { start["end-of-speech"] = e }
        if let p = options.partials { start["partials"] = p }
        if let a = options.alternatives { start["alternatives"] = a }
        if let w = options.wakeWord { start["wake-word"] = w }
        if let t = options.commandTimeout { start["command-timeout"] = t }
        if let c = options.sessionCalibration { start["session-calibration"] = c }
        if options.reconnects { start["reconnects"] = true }
        do {
            try await l.sendOpening(start)
            let answer = try await withTimeout(endpoint.timeout) { try await l.receive() }
            guard case .json(let m) = answer, m["type"] as? String == "started" else {
                if case .json(let m) = answer, let refusal = RemoteError(serverMessage: m) { throw refusal }
                throw RemoteError(code: "protocol", message: "the server did not start the session")
            }
        } catch {
            l.closeLater()
            starting.withLock { $0 = false }
            throw error
        }
        link.withLock { $0 = l }
        let continuation = self.continuation
        Task.detached {
            // The server's session limit (`too-long`), and a draining server between
            // utterances (`draining`), stop the session as `stop()` does: the utterance in
            // flight gets its final, then the end. They are read and delivered before the
            // fault is thrown.
            var stopped: RemoteError?
            do {
                while true {
                    guard case .json(let m) = try await l.receive() else { continue }
                    if let fault = RemoteError(serverMessage: m) {
                        if ["too-long", "draining"].contains(fault.code) && stopped == nil {
                            stopped = fault
                            continue
                        }
                        continuation.finish(throwing: stopped ?? fault)
                        break
                    }
                    guard let e = RemoteEvent.parse(m) else { continue }
                    continuation.yield(e)
                    if case .end = e {
                        if let stopped { continuation.finish(throwing: stopped) } else { continuation.finish() }
                        break
                    }
                }
            } catch {
                continuation.finish(throwing: stopped ?? error)
            }
            l.close()
        }
    }

    /// Sends interleaved samples in -1...1 (at the options' rate and channels).
    public func append(_ samples: [Float]) async throws {
        try await append(pcm: PCM16.data(samples[...]))
    }

    /// Sends interleaved s16le PCM.
    public func append(pcm: Data) async throws { try appendNow(pcm: pcm) }

    /// Sends interleaved s16le PCM from a thread of the caller's (the write is synchronous:
    /// a `remote-recognizer`'s sender thread calls it as audio comes, without a task hop).
    package func appendNow(pcm: Data) throws {
        guard let l = link.withLock({ $0 }) else { throw RemoteError(code: "state", message: "append before start") }
        try l.sendNow(pcm)
    }

    /// Ends the audio: the utterance in flight is finished and its final delivered, then `.end(stopped)`.
    public func stop() async throws {
        guard let l = link.withLock({ $0 }) else { throw RemoteError(code: "state", message: "stop before start") }
        try await l.send(["type": "stop"])
    }

    /// Discards what is pending: no further final; `.end(cancelled)`.
    public func cancel() async {
        guard let l = link.withLock({ $0 }) else { return }
        try? await l.send(["type": "cancel"])
    }
}
