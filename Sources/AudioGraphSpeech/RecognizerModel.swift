import AudioGraphCore
import Foundation
import Synchronization

/// A recognizer's decoder: loaded, taken from or given back to the decoders kept loaded
/// (``LoadedDecoders``), and what its load found.
///
/// What can be checked quickly (files there, the acoustic model and dictionary whole, a
/// vocabulary's lines) is checked in `open`, before the run starts, so such errors stop it
/// before `listening`. PocketSphinx's own load of a language-model search (the n-gram model,
/// the dictionary's 134k words) then runs on a thread of its own while the graph already
/// runs: the session is listening at once and the audio waits in the recognizer's queue (16 s
/// of it) until the decoder is ready. A load that fails there ends the run with its error
/// (code `model`). The search over the n-gram model (once the model's cut dictionary has
/// recorded its coverage: from the second load on), the first words' preview search and the
/// warm-up follow on the decoding thread, when it waits for audio or as the first utterance
/// opens, whichever comes first: a stream that ends with no speech never waits for them. A
/// search that cannot be built then ends the run with its error, as a failed load does.
/// Grammars, key phrases and the assistant's wake word load in `open`: they are small, and an
/// assistant's first moments are spent on the wake word.
///
/// `open` runs on the control thread before the run; the rest on the decoding thread.
final class RecognizerModel: @unchecked Sendable {
    let settings: RecognizerSettings
    /// The decoder, once loaded (or taken from the kept ones).
    private(set) var decoder: PocketSphinxDecoder?
    /// The command grammar's automaton (grammar-aware end of speech).
    private(set) var automaton: GrammarAutomaton?
    /// The decoder loading on a thread of its own while the graph already runs.
    private var loading: BackgroundLoad<LoadedDecoders.Entry>?
    /// The key its decoder was taken or loaded under (nil: not kept), and its load's warnings.
    private var keptKey: String?
    private var loadedWarnings: [String] = []
    /// Warnings from loading the model, reported once with the first run's events.
    private var pendingWarnings: [String] = []
    /// Why the background load failed (set by the decoding thread before `failed`).
    private let failure = Locked<EngineError?>(nil)
    private let failed = Atomic<Bool>(false)

    init(_ settings: RecognizerSettings) { self.settings = settings }

    deinit {
        // The decoding thread holds the recognizer (and this) while it runs: it has ended here.
        // Kept only while the files it was loaded from are there as they were: a session's own
        // grammar, removed with it (a server's), could never be asked for again.
        guard let decoder, let key = keptKey, settings.decoderKey == key else { return }
        LoadedDecoders.shared.give(.init(decoder: decoder, automaton: automaton, warnings: loadedWarnings), key: key)
    }

    /// What `open` found: the acoustic model's phones (when it read them) and, in assistant
    /// mode, the wake word's spotter.
    struct Opened {
        var phones: [String]?
        var spotter: WakeWordSpotter?
    }

    /// Whether a decoder is there or on its way (the node's thread has something to wait for).
    var isOpen: Bool { decoder != nil || loading != nil }

    /// Checks the model files and starts loading the decoder (see above).
    func open() throws(EngineError) -> Opened {
        guard decoder == nil, loading == nil else { return Opened() }
        let s = settings
        keptKey = s.reuseKey
        if let key = keptKey, let kept = LoadedDecoders.shared.take(key) {
            adopt(kept)
            return Opened()
        }
        // PocketSphinx ends the process on most damaged model files: check them first.
        let phones = try SpeechModel.checked(hmm: s.hmm, dict: s.dict)
        // A language model's search loads the dictionary cut to the model's words, once cut.
        var base = s.dict
        var coverage: LanguageModelDictionary.Coverage?
        if case .languageModel(let lm) = s.search, s.wake == nil, let cut = LanguageModelDictionary.cached(dict: s.dict, lm: lm) {
            (base, coverage) = (cut.path, cut.coverage)
        }
        // A vocabulary word the loaded dictionary lacks is added, with the whole dictionary's
        // pronunciation when it has one (a word the language model lacks is not in the cut).
        let vocabulary = try s.vocabularyPath.map { path throws(EngineError) in
            let known = PronunciationDictionary.words(base)
            return try Vocabulary(path: path, phones: Set(phones), known: { known.contains($0) },
                                  lookUp: { [dict = s.dict] in PronunciationDictionary.pronunciations(of: $0, in: dict) })
        }
        // The new words join a copy of the dictionary the decoder loads (a grammar or key
        // phrase is built as it loads); a language model then gets weight for them.
        var dictionary = base
        if let vocabulary, !vocabulary.words.isEmpty {
            dictionary = try Vocabulary.dictionary(base, adding: vocabulary.words)
        }
        let copied = dictionary != base
        let warnings = vocabulary?.skipped ?? []
        if s.search.isLanguageModel && s.wake == nil {
            let box = UncheckedSendable((self, dictionary, vocabulary)), coverage = coverage
            loading = BackgroundLoad(name: "audiograph.recognizer.load") { () throws(EngineError) in
                let (model, dictionary, vocabulary) = box.value
                defer { if copied { try? FileManager.default.removeItem(atPath: dictionary) } }
                return try model.load(dictionary: dictionary, vocabulary: vocabulary, warnings: warnings, coverage: coverage,
                                      preparingLater: vocabulary == nil)
            }
            return Opened(phones: phones)
        }
        defer { if copied { try? FileManager.default.removeItem(atPath: dictionary) } }
        let loaded = try load(dictionary: dictionary, vocabulary: vocabulary, warnings: warnings, coverage: coverage)
        var spotter: WakeWordSpotter?
        if let wake = s.wake {
            spotter = try WakeWordSpotter(phrase: wake.phrase, threshold: wake.threshold, hmm: s.hmm, dictionary: loaded.decoder)
        }
        adopt(loaded)
        return Opened(phones: phones, spotter: spotter)
    }

    /// Takes a loaded decoder; its warnings go out with the first run's events (`takeWarnings`).
    private func adopt(_ loaded: LoadedDecoders.Entry) {
        take(loaded)
        pendingWarnings = loaded.warnings
    }

    private func take(_ loaded: LoadedDecoders.Entry) {
        decoder = loaded.decoder
        automaton = loaded.automaton
        loadedWarnings = loaded.warnings
    }

    /// The load's warnings not yet reported (once: the first run's).
    func takeWarnings() -> [String] {
        defer { pendingWarnings = [] }
        return pendingWarnings
    }

    /// The decoder is changed from what was loaded (words from code): not kept for later sessions.
    func changed() { keptKey = nil }

    /// Whether the background load failed (render thread: the run ends with `failure`).
    var hasFailed: Bool { failed.load(ordering: .acquiring) }

    /// Why it failed, if it did.
    var failureError: EngineError? { failure.withLock { $0 } }

    /// Decoding thread: waits for the background load; the decoder, or nil when the load
    /// failed (the run then ends with its error).
    func finishLoading(_ stage: LaggingStage) -> PocketSphinxDecoder? {
        if let decoder { return decoder }
        guard let loading else { return nil }
        self.loading = nil
        switch loading.wait() {
        case .success(let loaded):
            take(loaded)  // the run has started: its warnings go out now
            for w in loaded.warnings { stage.emit(.warning(node: settings.nodeId, message: w), at: 0) }
            return loaded.decoder
        case .failure(let error):
            fail(error, stage)
            return nil
        }
    }

    /// Decoding thread: ends the run with `error` (a load that failed, or the search over the
    /// language model that could not be built when speech came).
    func fail(_ error: EngineError, _ stage: LaggingStage) {
        failure.withLock { $0 = error }
        failed.store(true, ordering: .releasing)
        stage.cancel()  // a render thread waiting for queue space stops waiting
    }

    /// PocketSphinx's load (any thread): the decoder, its grammar automaton and the load's
    /// warnings. `coverage`: the language model's, known when `dictionary` is its cut (else
    /// counted here, and the cut made for the next load). With `preparingLater` the preview
    /// search and warm-up wait for `prepareForSpeech` (the decoding thread's; not with a
    /// vocabulary, whose model the preview must not be cut from). Errors name the parameter of
    /// the search.
    private func load(dictionary: String, vocabulary: Vocabulary?, warnings: [String],
                      coverage known: LanguageModelDictionary.Coverage?,
                      preparingLater: Bool = false) throws(EngineError) -> LoadedDecoders.Entry {
        let s = settings
        var warnings = warnings
        do throws(EngineError) {
            // With the model's coverage known (recorded in its cut), the search over it waits for
            // speech too; counting the coverage needs the search.
            let d = try PocketSphinxDecoder(hmm: s.hmm, dict: dictionary, search: s.search, limits: s.limits,
                                            warp: s.warp, dropsSilence: s.finalPass == .utterance,
                                            preview: s.previewLimits, preparedLater: preparingLater,
                                            searchLater: preparingLater && known != nil)
            if let vocabulary, s.search.isLanguageModel, !vocabulary.phrases.isEmpty { try d.addVocabularyModel(vocabulary) }
            if case .keyphrase(let phrase, _) = s.search, let word = d.firstUnknownWord(in: phrase) {
                throw EngineError(.model, "\"\(word)\" is not in the dictionary \(s.dict)",
                                  suggestion: "spell the keyphrase with dictionary words")
            }
            if case .languageModel(let lm) = s.search {
                var words: LanguageModelDictionary.Coverage
                if let known {
                    words = known
                } else {
                    let counted = d.languageModelWords()
                    words = counted.coverage
                    // Counted over the dictionary alone (no vocabulary), the count is the cut's.
                    if s.wake == nil && vocabulary == nil {
                        LanguageModelDictionary.store(dict: s.dict, lm: lm, words: counted.words, coverage: words)
                    }
                }
                // A few missing words are usual (the en-us model lacks none); many mean a
                // dictionary for another language model.
                if words.missing > 0 && words.missing * 100 >= words.total {
                    warnings.append("\(words.missing) of the \(words.total) words of the language model \(lm) have no pronunciation in the dictionary \(s.dict) and cannot be recognised (e.g. \(words.examples.joined(separator: ", ")))")
                }
            }
            let automaton = d.grammarAutomaton()
            if !preparingLater { d.warmUp() }
            return .init(decoder: d, automaton: automaton, warnings: warnings)
        } catch {
            var e = error
            if e.parameter != nil { throw e }
            if e.message.contains("missing in the dictionary") {
                e.message += " \(s.dict)"
                e.suggestion = "add the word to a vocabulary file (the recognizer's vocabulary parameter)"
            }
            e.parameter = switch s.search {
            case .grammar: "grammar"
            case .keyphrase: "keyphrase"
            case .languageModel: "lm"
            }
            throw e
        }
    }
}
