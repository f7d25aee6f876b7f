import AudioGraphCore
import Foundation
import Synchronization

/// `recognizer`: recognises speech with PocketSphinx and reports partial and final results.
///
/// The render thread only copies 16 kHz mono blocks into the queue of a `LaggingStage`; its
/// decoding thread feeds PocketSphinx. With file input a full queue makes the graph wait
/// (nothing lost); with live input blocks are dropped and counted. Results reach the event
/// stream through `takeStreamEvents` on the delivery thread, stamped with the audio decoded
/// so far, so the engine can put them in stream order among the vad's events.
///
///     render thread ──► LaggingStage (256 blocks) ──► decoding thread ──► outbox ──► delivery thread
public final class Recognizer: AudioNode {
    public static let descriptor = NodeDescriptor(
        type: "recognizer",
        summary: "Recognises speech (PocketSphinx): partial and final results with alternatives, word times, calibrated confidences.",
        role: .sink,
        parameters: [
            ParameterSpec("hmm", .path, default: .string(SpeechModel.defaultHMM), help: "acoustic model directory"),
            ParameterSpec("lm", .path, default: .string(SpeechModel.defaultLM), help: "language model (dictation)"),
            ParameterSpec("dict", .path, default: .string(SpeechModel.defaultDict), help: "pronunciation dictionary"),
            ParameterSpec("vocabulary", .path,
                          help: "words and phrases to recognise beyond the dictionary: a text file, one per line; a word may be followed by a tab and its pronunciation in the model's phones, the others get one from flite's lexicon (README: Vocabulary)"),
            ParameterSpec("grammar", .path, help: "JSGF grammar file (commands); replaces the language model"),
            ParameterSpec("keyphrase", .string, help: "phrase to spot (wake word); replaces the language model"),
            ParameterSpec("threshold", .number(1e-100...1), default: 1e-20, help: "keyphrase and wake-word detection threshold"),
            ParameterSpec("wake-word", .string,
                          help: "assistant mode: wait for this phrase, then recognise one command (grammar or language model), then wait again; reports wake and assistant events"),
            ParameterSpec("command-timeout", .number(0.5...60), default: 5, unit: "s",
                          help: "with wake-word: back to waiting when no command begins this long after the wake word"),
            ParameterSpec("partials", .number(0...10), default: 0.25, unit: "s",
                          help: "at most one partial result per this much audio (0: none)"),
            ParameterSpec("alternatives", .integer(0...20), default: 3, help: "n-best alternatives in final results"),
            ParameterSpec("final", .choice(["utterance", "live"]), default: "utterance",
                          help: "utterance: decode each utterance again, whole, for its final result (cepstral mean over the utterance, as the model asks: fewest errors, final 1-3 s after a long utterance); live: one pass, its result at once (lowest latency and cost)"),
            ParameterSpec("cmn-lookahead", .number(0...3), default: 0.1, unit: "s",
                          help: "with final=live: audio of the session's first utterance held back to measure its cepstral mean before decoding starts (the mean then follows the speech and carries over to later utterances); 0: PocketSphinx's running mean"),
            ParameterSpec("max-hmms", .integer(100...100000), default: 4000,
                          help: "most HMMs the search keeps active per frame (PocketSphinx -maxhmmpf, default 30000): the cap bounds the decoder's cost where speech begins and every word may start; more costs CPU and delays first partials for little accuracy"),
            ParameterSpec("preview-hmms", .integer(0...100000), default: 1000,
                          help: "with final=live and cmn-lookahead: the session's first utterance is first decoded by a search keeping at most this many HMMs per frame, whose first words show while its held audio is decoded in full (the first partial comes sooner; costs load time and memory); 0: off"),
            ParameterSpec("max-word-exits", .integer(1...1000), default: 10,
                          help: "most distinct words that may end per frame (PocketSphinx -maxwpf)"),
            ParameterSpec("second-pass", .bool, default: true,
                          help: "with the language model: PocketSphinx's second (flat-lexicon) pass over each part of an utterance as it closes; false: about a quarter less decoder CPU for about 1 point more WER (README: Serving speech)"),
            ParameterSpec("continuous", .bool, default: true,
                          help: "keep recognising utterance after utterance (false: end the run after the first)"),
        ],
        controls: [
            .output("results", .text, help: "final results, and with a `wake-word` the assistant's states (a speech-synth's replies and earcons)"),
            .output("verdict", .verdict, help: "with a `grammar`: whether the command so far is a whole sentence (grammar-aware end of speech)"),
            .input("gate", .gate, help: "what the graph plays: not decoded (it does not hear itself)"),
            .input("barge-in", .text, help: "with `wake-word`: a speech-synth's `barge-in`: the speech that cut its answer short is decoded as the next command (a wake word in it starts a new one)"),
        ],
        make: { p throws(GraphError) in try Recognizer(p) })

    let hmm: String, dict: String
    /// The `vocabulary` file, if any.
    let vocabularyPath: String?
    /// Words and phrases from code the decoding thread has yet to add (``addVocabulary(_:)``).
    let pendingVocabulary = Locked<[[VocabularyEntry]]>([])
    /// The acoustic model's phones, read when first needed.
    let modelPhoneSet = Locked<Set<String>?>(nil)
    let search: PocketSphinxDecoder.Search
    let partialFrames: Int
    let alternatives: Int
    let continuous: Bool
    /// Search limits per frame (active HMMs, word exits).
    let limits: PocketSphinxDecoder.Limits
    let finalPass: FinalPass
    /// Seconds of the first utterance held back to measure its cepstral mean (single pass).
    let cmnLookahead: Double

    /// Limits of the cheaper search whose first words a session's first utterance shows
    /// while its held audio is decoded in full (see `UtteranceDecoder`); nil: none.
    let previewLimits: PocketSphinxDecoder.Limits?

    /// Where final results come from.
    enum FinalPass: String { case utterance, live }
    /// Assistant mode: the wake word, its detection threshold, the command timeout.
    let wake: (phrase: String, threshold: Double, timeout: Double)?
    var listener: CommandListener?
    /// The command grammar's automaton (grammar-aware end of speech), and where to report.
    var automaton: GrammarAutomaton?
    var progress = HypothesisProgress()
    private var gate = PlaybackGate()
    var decoder: PocketSphinxDecoder?
    /// The decoding thread, its queue and its outbox of results (see `LaggingStage`).
    var stage: LaggingStage?
    var nodeId = "recognizer"
    var segmentation = Segmentation.whole
    /// Warnings from loading the model, reported once with the first run's events.
    var loadWarnings: [String] = []

    init(_ p: ResolvedParameters) throws(GraphError) {
        nodeId = p.nodeId
        hmm = p.text("hmm")
        dict = p.text("dict")
        vocabularyPath = p.string("vocabulary")
        let grammar = p.string("grammar"), keyphrase = p.string("keyphrase")
        if grammar != nil && keyphrase != nil {
            throw p.error("keyphrase", "give either a grammar or a keyphrase, not both")
        }
        if let w = p.string("wake-word") {
            let phrase = w.lowercased().split(separator: " ").joined(separator: " ")
            guard !phrase.isEmpty else { throw p.error("wake-word", "expected a phrase, got an empty string") }
            if keyphrase != nil {
                throw p.error("wake-word", "a wake word is followed by a command: give a grammar or a language model, not a keyphrase")
            }
            wake = (phrase, p.number("threshold"), p.number("command-timeout"))
        } else {
            wake = nil
        }
        func mustExist(_ path: String, _ param: String, directory: Bool = false) throws(GraphError) {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue == directory else {
                throw p.error(param, "\(path): no such \(directory ? "model directory" : "file")",
                              suggestion: param == "grammar" || param == "vocabulary" ? nil : "install Debian's pocketsphinx-en-us or point \(param) at a model")
            }
        }
        try mustExist(hmm, "hmm", directory: true)
        try mustExist(hmm + "/mdef", "hmm")
        try mustExist(dict, "dict")
        if let vocabularyPath { try mustExist(vocabularyPath, "vocabulary") }
        if let grammar {
            try mustExist(grammar, "grammar")
            search = .grammar(grammar)
        } else if let keyphrase {
            guard !keyphrase.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw p.error("keyphrase", "expected a phrase, got an empty string")
            }
            search = .keyphrase(keyphrase.lowercased(), threshold: p.number("threshold"))
        } else {
            let lm = p.text("lm")
            try mustExist(lm, "lm")
            search = .languageModel(lm)
        }
        partialFrames = Int(p.number("partials") * 16000)
        alternatives = p.integer("alternatives")
        continuous = p.bool("continuous")
        limits = .init(hmms: p.integer("max-hmms"), wordExits: p.integer("max-word-exits"), secondPass: p.bool("second-pass"))
        finalPass = p.choice("final")
        cmnLookahead = p.number("cmn-lookahead")
        let previewHMMs = p.integer("preview-hmms")
        let previews = finalPass == .live && cmnLookahead > 0 && partialFrames > 0 && previewHMMs > 0
        previewLimits = previews ? .init(hmms: previewHMMs, wordExits: limits.wordExits) : nil
    }

    /// PocketSphinx's models are 16 kHz mono; the engine converts anything else.
    public func acceptedFormat(forInput bus: Int, offered: StreamFormat, all: [StreamFormat]) -> StreamFormat {
        StreamFormat(sampleRate: 16000, channelCount: 1)
    }

    /// The key its decoder was taken or loaded under (nil: not kept), and its load's warnings.
    var keptKey: String?
    var loadedWarnings: [String] = []
    /// The decoder loading on a thread of its own while the graph already runs (see `open`).
    var loading: BackgroundLoad<LoadedDecoders.Entry>?
    /// Why the background load failed (set by the decoding thread before `loadFailed`).
    let loadFailure = Locked<EngineError?>(nil)
    let loadFailed = Atomic<Bool>(false)
    /// Render thread: `process` has reported the failed load (so `finish` does not again).
    private var reportedLoadFailure = false

    deinit {
        // The decoding thread holds the recognizer while it runs: it has ended here.
        guard let decoder, let key = keptKey else { return }
        LoadedDecoders.shared.give(.init(decoder: decoder, automaton: automaton, warnings: loadedWarnings), key: key)
    }

    public func prepare(_ context: PrepareContext) throws(EngineError) {
        segmentation = context.upstreamMarkers.contains(.utteranceEnd) ? .endOfSpeech
            : context.upstreamMarkers.contains(.speechStart) ? .speech : .whole
        gate = context.playbackGate
        progress = context.hypothesis
        takesBargeIns = wake != nil && !(context.controlSources["barge-in"] ?? []).isEmpty
        // Reported from the live pass's hypothesis: none without partial results and a live pass.
        if automaton != nil && (finalPass == .live || partialFrames > 0) { progress.hasReporter = true } else { automaton = nil }
        stage = LaggingStage(name: "audiograph.recognizer", format: StreamFormat(sampleRate: 16000, channelCount: 1),
                             maxFrames: context.maxFrames, blockCount: 256, policy: context.isLive ? .drop : .block,
                             eventsReady: context.eventsReady)
        stage?.queue.roomMade = context.renderReady
        startThread()
    }

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        if loadFailed.load(ordering: .acquiring) {
            reportedLoadFailure = true
            return .failed(Self.loadFailureCode)
        }
        let input = io.inputs[0]
        let stage = stage.unsafelyUnwrapped
        let writes = input.frameLength > 0 || input.markerCount > 0
        // File input: the decoder is behind by its whole queue; the engine waits for room.
        if writes && stage.queue.policy == .block && !stage.queue.hasRoom { return .notReady }
        if takesBargeIns, let t = gate.takeInterruption() { _ = interruptions.push(Interruption(onset: t, from: input.time)) }
        if writes { stage.write(input, muting: gate) }
        if io.inputsEnded { stage.endInput() }
        if !continuous {
            // Single utterance: the session ends with the first utterance's end.
            let closing: StreamMarker.Kind = segmentation == .endOfSpeech ? .utteranceEnd : .speechEnd
            for m in input.markers where m.kind == closing { io.requestEnd(.endOfSpeech) }
        }
        return .ok
    }

    public func finish(_ reason: EndReason) throws(EngineError) {
        guard let stage else { return }
        if reason == .cancelled || reason == .error { abandon() }
        stage.finish()
        let lost = stage.queue.lostBlocks.load(ordering: .relaxed)
        if lost > 0 { stage.emit(.overrun(node: nodeId, lost: lost), at: .infinity) }
        // A load that failed after the input had all been read.
        if !reportedLoadFailure, let e = loadFailure.withLock({ $0 }) { throw e }
    }

    static let loadFailureCode: Int32 = 1

    public func failure(_ code: Int32) -> EngineError {
        loadFailure.withLock { $0 } ?? EngineError(.model, "the recognizer failed")
    }

    public func abandon() { stage?.cancel() }

    public func reset() {
        progress.reset()
        startThread()
    }

    /// Assistant mode: drops the command being listened for and waits for the wake word
    /// again (an `assistant` event with reason `cancelled`). Any thread; no-op otherwise.
    public func cancelCommand() { listener?.requestCancel() }

    /// Whether a speech-synth's `barge-in` is connected (with a wake word): its interruptions,
    /// which it marks on the graph's gate, are taken as commands.
    private var takesBargeIns = false

    /// Barge-ins handed from the render thread to the decoding thread with the block they
    /// came in, so the command starts at the same block in every file run.
    struct Interruption: BitwiseCopyable {
        var onset: Double
        var from: Double
    }
    let interruptions = SPSCQueue<Interruption>(capacity: 8)

    public func takeStreamEvents(nodeId: String) -> StreamEvents? { stage?.take() }

    /// Decodes on a thread of its own, behind the audio.
    public var worksBehind: Bool { true }

    /// Whether its decoding queue has room for another block.
    public var canTakeBlock: Bool { stage?.queue.hasRoom ?? true }

    private func startThread() {
        guard let stage, decoder != nil || loading != nil else { return }
        let warnings = loadWarnings.map { StreamEvent(at: 0, EngineEvent.warning(node: nodeId, message: $0)) }
        loadWarnings = []
        let box = UncheckedSendable(self)
        stage.start(initial: warnings) { stage in
            let node = box.value
            // Audio queues up meanwhile (16 s of it) while a background load finishes.
            guard let decoder = node.decoder ?? node.finishLoading(stage) else {
                while let (index, _) = stage.next() { stage.release(index) }
                return
            }
            node.decode(stage, decoder)
        }
    }
}
