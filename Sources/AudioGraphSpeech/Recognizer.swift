import AudioGraphConversation
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
///
/// The node moves audio and results; each other role has one owner: ``RecognizerSettings``
/// (its parameters, checked), ``RecognizerModel`` (loading the decoder, or taking it from
/// and giving it back to the kept ones), ``WordsFromCode`` (words from code between
/// utterances), ``CommandListener`` (assistant mode: wake word, then one command) and
/// ``GrammarVerdicts`` (its `verdict` output). The decoding thread is `Recognizer+Decoding`.
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
            ParameterSpec("top-gaussians", .integer(1...16), default: 4,
                          help: "the best Gaussians of each codebook that score a state per frame (PocketSphinx -topn): 2 takes about a fifth less CPU for about 2 points more WER (README: Serving speech)"),
            ParameterSpec("warp", .number(0.8...1.2), default: 1,
                          help: "the front end's frequency warp for the talker's vocal tract (PocketSphinx -warp_type inverse_linear; 1: none, below 1 for a longer tract, above for a shorter one): set per talker; no one value helps every talker (README: A talker's voice)"),
            ParameterSpec("session-calibration", .bool, default: false,
                          help: "word confidences follow how often this session's words are right: the model's confidences of the session's earlier words estimate its share of right words, and each final's confidences move from the 60 % the model was fitted at to that share; for long sessions of one talker (better calibrated where most words are wrong, and across sessions; confidences of different sessions compare less well: docs/confidences.md); false: the model's confidences alone"),
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

    /// What it was asked for (its parameters, checked).
    let settings: RecognizerSettings
    /// Its decoder: loaded, or taken from and given back to the kept ones.
    let model: RecognizerModel
    /// Words and phrases from code, waiting to join the decoder.
    let words: WordsFromCode
    /// Assistant mode: the wake word, then one command (made by `open`).
    var listener: CommandListener?
    /// With a grammar and a live pass: its `verdict` output (made by `prepare`).
    var verdicts: GrammarVerdicts?
    /// The `verdict` output's channel (reset with each run).
    private var progress = HypothesisProgress()
    /// What the graph plays (its `gate` input): left out of what is decoded.
    private var gate = PlaybackGate()
    /// The decoding thread, its queue and its outbox of results (see `LaggingStage`).
    var stage: LaggingStage?
    /// How utterances are delimited, from what the graph upstream produces.
    var segmentation = Segmentation.whole
    var nodeId: String { settings.nodeId }

    /// Where final results come from.
    enum FinalPass: String { case utterance, live }

    init(_ p: ResolvedParameters) throws(GraphError) {
        settings = try RecognizerSettings(p)
        model = RecognizerModel(settings)
        words = WordsFromCode(settings)
    }

    /// PocketSphinx's models are 16 kHz mono; the engine converts anything else.
    public func acceptedFormat(forInput bus: Int, offered: StreamFormat, all: [StreamFormat]) -> StreamFormat {
        StreamFormat(sampleRate: 16000, channelCount: 1)
    }

    /// Render thread: `process` has reported the failed load (so `finish` does not again).
    private var reportedLoadFailure = false

    /// Checks the model files and starts loading the decoder (see ``RecognizerModel``).
    public func open() throws(EngineError) {
        let opened = try model.open()
        if let phones = opened.phones { words.know(phones: phones) }
        if let spotter = opened.spotter, let wake = settings.wake {
            listener = CommandListener(nodeId: nodeId, spotter: spotter, timeout: wake.timeout,
                                       emit: { [unowned self] e, at in self.stage?.emit(e, at: at) })
        }
    }

    public func prepare(_ context: PrepareContext) throws(EngineError) {
        segmentation = context.upstreamMarkers.contains(.utteranceEnd) ? .endOfSpeech
            : context.upstreamMarkers.contains(.speechStart) ? .speech : .whole
        gate = context.channel(.gate)
        progress = context.channel(.verdict)
        takesBargeIns = settings.wake != nil && !(context.controlSources["barge-in"] ?? []).isEmpty
        // Reported from the live pass's hypothesis: none without partial results and a live pass.
        verdicts = nil
        if let automaton = model.automaton, settings.finalPass == .live || settings.partialFrames > 0 {
            progress.hasReporter = true
            verdicts = GrammarVerdicts(automaton: automaton, progress: progress)
        }
        stage = LaggingStage(name: "audiograph.recognizer", format: StreamFormat(sampleRate: 16000, channelCount: 1),
                             maxFrames: context.maxFrames, blockCount: 256, policy: context.isLive ? .drop : .block,
                             eventsReady: context.eventsReady)
        stage?.queue.roomMade = context.renderReady
        startThread()
    }

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        if model.hasFailed {
            reportedLoadFailure = true
            return .failed(Self.loadFailureCode)
        }
        let input = io.inputs[0]
        let stage = stage.unsafelyUnwrapped
        let writes = input.frameLength > 0 || input.markerCount > 0
        // File input: the decoder is behind by its whole queue; the engine waits for room.
        if writes && stage.queue.policy == .block && !stage.queue.hasRoom { return .notReady }
        if takesBargeIns, let t = gate.takeInterruption() { _ = interruptions.push(Interruption(onset: t, from: input.time)) }
        if writes { stage.write(input, silencing: gate) }
        if io.inputsEnded { stage.endInput() }
        if !settings.continuous {
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
        if !reportedLoadFailure, let e = model.failureError { throw e }
    }

    static let loadFailureCode: Int32 = 1

    public func failure(_ code: Int32) -> EngineError {
        model.failureError ?? EngineError(.model, "the recognizer failed")
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
        guard let stage, model.isOpen else { return }
        let warnings = model.takeWarnings().map { StreamEvent(at: 0, EngineEvent.warning(node: nodeId, message: $0)) }
        let box = UncheckedSendable(self)
        stage.start(initial: warnings) { stage in
            let node = box.value
            // Audio queues up meanwhile (16 s of it) while a background load finishes.
            guard let decoder = node.model.finishLoading(stage) else {
                while let (index, _) = stage.next() { stage.release(index) }
                return
            }
            node.decode(stage, decoder)
        }
    }
}
