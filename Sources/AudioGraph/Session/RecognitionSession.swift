import AudioGraphCore
import AudioGraphSpeech
import Foundation

/// A speech recognition session over a graph (SFSpeechRecognitionTask, SpeechKit's
/// session): start, then partial and final results as you speak, and an end with a reason.
///
/// ```swift
/// let session = try RecognitionSession(graph: GraphFile.load("graphs/command.json"))
/// try session.start()
/// for await event in session.events {
///     switch event {
///     case .partial(_, _, let text): print("…", text)
///     case .final(_, let result): print(result.text, result.confidence)
///     case .end(let reason, let suggestion): print(reason, suggestion ?? "")
///     default: break
///     }
/// }
/// ```
///
/// `stop()` ends the audio: capture stops, what was captured goes through the graph and
/// the utterance in flight gets its final result, then the session ends with `stopped`.
/// `cancel()` discards: no further final result, reason `cancelled`. A session ends by
/// itself at end of input, at the end of speech (single-utterance graphs), or when nobody
/// speaks (`no-speech`); `no-speech`, `error` and quiet or noisy input come with a
/// suggestion. Misuse (start twice, stop before start, cancel after the end) throws a
/// ``SessionError``. Events arrive in stream order on the engine's delivery thread, both
/// through `events` and through the optional `onEvent` closure.
public final class RecognitionSession: Sendable {
    /// The engine the session drives. Within this package (the CLI, tests) only: embedders
    /// go through the session (taps, formats, position), which keeps its state machine whole.
    package let engine: AudioEngine
    private let machine = Locked(SessionStateMachine())
    private let advisor = InputAdvisor()
    private let stream: AsyncStream<EngineEvent>
    private let continuation: AsyncStream<EngineEvent>.Continuation
    private let handler: Locked<(@Sendable (EngineEvent) -> Void)?> = Locked(nil)
    private let streamWanted = Locked(false)

    /// The recognition results as one typed stream (volatile, then final over the same
    /// range); finals are kept until read. One sequence per session: iterate it once.
    public let results = SpeechResults()

    /// Whether sessions keep their recognizer's loaded model for the next session with the
    /// same model files and settings (off by default). Turn it on in a program that runs many
    /// sessions one after another (a batch of files): the model then loads once per
    /// concurrent session instead of once per session, and each session starts the model
    /// over, so its results do not depend on the sessions before: byte for byte with a
    /// whole-utterance final pass; with a live final pass and its look-ahead, alternatives'
    /// scores and word confidences can differ in their last digits (by up to about 1 % and
    /// 0.001 on the corpora measured). Turning it off frees the kept models.
    public static var keepsLoadedModels: Bool {
        get { SpeechModel.keepsLoadedModels }
        set { SpeechModel.keepsLoadedModels = newValue }
    }

    /// At most this many models are kept loaded (``keepsLoadedModels``; default 8, about 75 MB
    /// each with the default model); past it the least recently used is freed. Without a
    /// limit they would stay as many as were ever in use at once. A model loaded from a file
    /// that has since been removed or changed is not kept.
    public static var loadedModelsLimit: Int {
        get { SpeechModel.loadedModelsLimit }
        set { SpeechModel.loadedModelsLimit = newValue }
    }

    /// How many loaded models are kept now, waiting for a session (at most ``loadedModelsLimit``).
    public static var loadedModelsKept: Int { SpeechModel.loadedModelsKept }

    /// Validates `graph` and prepares its engine: files are opened and model files checked
    /// here, before `start`, so listening begins at once. A recognizer's language model (the
    /// bulk of its load) goes on loading in the background from here while the session
    /// already listens, its audio queued until the decoder is ready; if it fails, the session
    /// ends with an `error` event (code `model`) instead of this throwing. Grammars, key
    /// phrases and wake words load here. Throws `GraphErrors`, `GraphError` or `EngineError`.
    public convenience init(graph: GraphDescription, registry: NodeRegistry = .builtin,
                            options: AudioEngine.Options = .init()) throws {
        switch GraphValidator.validate(graph, registry: registry) {
        case .success(let g): try self.init(validated: g, options: options)
        case .failure(let e): throw e
        }
    }

    /// Prepares a session over an already validated graph.
    public init(validated: ValidatedGraph, options: AudioEngine.Options = .init()) throws {
        engine = AudioEngine(graph: validated, options: options)
        try engine.prepare()
        (stream, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(4096))
        // The advisor's suggestions are about speech: graphs that only convert or record
        // audio do not pay for watching the input.
        let listens = engine.graph.nodes.contains { !$0.descriptor.markers.isEmpty || $0.descriptor.type == "recognizer" }
        if listens, let source = engine.graph.nodes.first(where: { $0.descriptor.role == .source && $0.descriptor.type != SpeechSynth.descriptor.type }) {
            let advisor = self.advisor
            try engine.installTap(onNode: source.id, bufferSize: 1600) { advisor.observe($0) }
        }
        // Weak: the engine is the session's, and a strong capture would keep both alive for good.
        engine.setEventHandler { [weak self] e in self?.deliver(e) }
    }

    /// Every event of the session in stream order from `start()`; finishes after `.end`.
    /// With an `onEvent` handler installed, the stream buffers only once asked for (so
    /// callback-only users keep nothing): to get every event both ways, ask before `start()`.
    public var events: AsyncStream<EngineEvent> {
        streamWanted.withLock { $0 = true }
        return stream
    }

    /// Called for every event on the delivery thread (callback-style code). Set before `start`.
    public func onEvent(_ handler: @escaping @Sendable (EngineEvent) -> Void) {
        self.handler.withLock { $0 = handler }
    }

    /// Begins listening.
    public func start() throws {
        let action = try machine.withLock { m throws(SessionError) in try m.start() }
        // Without a handler the stream is the only way to hear the session: it buffers
        // from the first event, however late the consumer starts reading.
        if handler.withLock({ $0 == nil }) { streamWanted.withLock { $0 = true } }
        if action == .startEngine { try engine.start() }
    }

    /// Ends the audio; the utterance in flight is finished and delivered.
    public func stop() throws(SessionError) {
        let action = try machine.withLock { m throws(SessionError) in try m.stop() }
        if action == .stopEngine { engine.stop() }
    }

    /// Speaks `text` through the graph's `speech-synth` node; returns once it has been
    /// played (true) or cancelled (false). Throws when the graph has no such node or its
    /// queue is full.
    public func speak(_ text: String) async throws -> Bool {
        guard let synth = engine.firstNode(of: SpeechSynth.self) else {
            throw EngineError(.internalLimit, "the graph has no speech-synth node to speak with")
        }
        return try await synth.speak(text)
    }

    /// Stops what the graph's `speech-synth` is saying and drops what waits.
    public func cancelSpeech() {
        engine.firstNode(of: SpeechSynth.self)?.cancelSpeech()
    }

    /// In an assistant graph (a recognizer with a `wake-word`): drops the command being
    /// listened for and waits for the wake word again (`assistant` event, reason
    /// `cancelled`; the cancel earcon plays). Does nothing otherwise.
    public func cancelCommand() {
        engine.firstNode(of: Recognizer.self)?.cancelCommand()
    }

    /// Adds words and phrases for the graph's recognizer to hear from the next utterance on
    /// (before the first, if none has begun), with a language model: `VocabularyEntry("ramen")`,
    /// `VocabularyEntry("find shawarma restaurants")`, or a word with its phones. Checked
    /// now: a malformed entry or phones the model lacks throw an `EngineError` naming the
    /// entry; a word that gets no pronunciation is left out with a `warning` event. Throws
    /// when the graph has no recognizer or it searches a grammar or key phrase (those take
    /// their words from the `vocabulary` file).
    public func addVocabulary(_ entries: [VocabularyEntry]) throws {
        guard let recognizer = engine.firstNode(of: Recognizer.self) else {
            throw EngineError(.model, "the graph has no recognizer to add words to", parameter: "vocabulary")
        }
        try recognizer.addVocabulary(entries)
    }

    /// Ends the audio, waits for the last final result and returns why the session ended
    /// (`stop()` then `ended()`; on a session that has already ended, just its reason).
    public func finish() async throws(SessionError) -> EndReason {
        let action = try machine.withLock { m throws(SessionError) -> SessionStateMachine.Action in
            if case .ended = m.state { return .none }
            return try m.stop()
        }
        if action == .stopEngine { engine.stop() }
        return await ended()
    }

    /// Discards pending audio and results and ends at once. Idempotent; after the end it
    /// does nothing. Throws only before `start()`.
    public func cancel() throws(SessionError) {
        let action = try machine.withLock { m throws(SessionError) in try m.cancel() }
        if action == .cancelEngine { engine.cancel() }
    }

    /// Waits for the end and returns its reason.
    public func ended() async -> EndReason { await engine.ended() }

    /// Current state.
    public var state: State {
        switch machine.withLock({ $0.state }) {
        case .idle: .idle
        case .listening: .listening
        case .stopping: .stopping
        case .cancelling: .cancelling
        case .ended(let r): .ended(EndReason(rawValue: r) ?? .error)
        }
    }

    /// Where a session is in its life.
    public enum State: Sendable, Equatable {
        /// Made, not started.
        case idle
        /// Started: audio flows, results come.
        case listening
        /// `stop()` was called: the audio ends, the utterance in flight is finished.
        case stopping
        /// `cancel()` was called: what is pending is discarded.
        case cancelling
        /// Over, for this reason.
        case ended(EndReason)
    }

    /// Taps `node`'s output `bus`: `block` gets its audio on the delivery thread in blocks of
    /// `bufferSize` frames, every frame in order (see ``AudioEngine/installTap(onNode:bus:bufferSize:format:block:)``).
    @discardableResult
    public func installTap(onNode node: String, bus: Int = 0, bufferSize: Int, format: StreamFormat? = nil,
                           block: @escaping @Sendable (AudioBuffer) -> Void) throws(GraphError) -> Tap {
        try engine.installTap(onNode: node, bus: bus, bufferSize: bufferSize, format: format, block: block)
    }

    /// Removes a tap; its last blocks are delivered first.
    public func removeTap(_ tap: Tap) { engine.removeTap(tap) }

    /// The format of a node's output bus, as negotiated.
    public func format(ofNode id: String, bus: Int = 0) -> StreamFormat? { engine.format(ofNode: id, bus: bus) }

    /// Seconds of audio the session has taken in so far.
    public var position: Double { engine.position }

    /// Seconds the input lasts, when it is a file.
    public var duration: Double? { engine.duration }

    private func deliver(_ e: EngineEvent) {
        advisor.observe(e)
        var event = e
        if case .end(let reason, _) = e {
            event = .end(reason, suggestion: advisor.suggestion(for: reason))
            machine.withLock { $0.ended(reason.rawValue) }
        }
        results.take(event)
        handler.withLock { $0 }?(event)
        if streamWanted.withLock({ $0 }) { continuation.yield(event) }
        if case .end = event { continuation.finish() }
    }
}
