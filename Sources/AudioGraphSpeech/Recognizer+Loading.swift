import AudioGraphCore
import Foundation

/// Loading the recognizer's model.
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
extension Recognizer {
    /// Checks the model files and starts loading the decoder (see above).
    public func open() throws(EngineError) {
        guard decoder == nil, loading == nil else { return }
        keptKey = reuseKey
        if let key = keptKey, let kept = LoadedDecoders.shared.take(key) {
            adopt(kept)
            return
        }
        // PocketSphinx ends the process on most damaged model files: check them first.
        let phones = try SpeechModel.checked(hmm: hmm, dict: dict)
        modelPhoneSet.withLock { $0 = Set(phones) }
        // A language model's search loads the dictionary cut to the model's words, once cut.
        var base = dict
        var coverage: LanguageModelDictionary.Coverage?
        if case .languageModel(let lm) = search, wake == nil, let cut = LanguageModelDictionary.cached(dict: dict, lm: lm) {
            (base, coverage) = (cut.path, cut.coverage)
        }
        // A vocabulary word the loaded dictionary lacks is added, with the whole dictionary's
        // pronunciation when it has one (a word the language model lacks is not in the cut).
        let vocabulary = try vocabularyPath.map { path throws(EngineError) in
            let known = PronunciationDictionary.words(base)
            return try Vocabulary(path: path, phones: Set(phones), known: { known.contains($0) },
                                  lookUp: { [dict] in PronunciationDictionary.pronunciations(of: $0, in: dict) })
        }
        // The new words join a copy of the dictionary the decoder loads (a grammar or key
        // phrase is built as it loads); a language model then gets weight for them.
        var dictionary = base
        if let vocabulary, !vocabulary.words.isEmpty {
            dictionary = try Vocabulary.dictionary(base, adding: vocabulary.words)
        }
        let copied = dictionary != base
        let warnings = vocabulary?.skipped ?? []
        if search.isLanguageModel && wake == nil {
            let box = UncheckedSendable((self, dictionary, vocabulary)), coverage = coverage
            loading = BackgroundLoad(name: "audiograph.recognizer.load") { () throws(EngineError) in
                let (node, dictionary, vocabulary) = box.value
                defer { if copied { try? FileManager.default.removeItem(atPath: dictionary) } }
                return try node.load(dictionary: dictionary, vocabulary: vocabulary, warnings: warnings, coverage: coverage,
                                     preparingLater: vocabulary == nil)
            }
            return
        }
        defer { if copied { try? FileManager.default.removeItem(atPath: dictionary) } }
        let loaded = try load(dictionary: dictionary, vocabulary: vocabulary, warnings: warnings, coverage: coverage)
        if let wake {
            let spotter = try WakeWordSpotter(phrase: wake.phrase, threshold: wake.threshold, hmm: hmm, dictionary: loaded.decoder)
            listener = CommandListener(nodeId: nodeId, spotter: spotter, timeout: wake.timeout,
                                       emit: { [unowned self] e, at in self.stage?.emit(e, at: at) })
        }
        adopt(loaded)
    }

    /// Takes a loaded decoder as this recognizer's; its warnings go out with the first run's
    /// events (`startThread`).
    func adopt(_ loaded: LoadedDecoders.Entry) {
        take(loaded)
        loadWarnings = loaded.warnings
    }

    private func take(_ loaded: LoadedDecoders.Entry) {
        decoder = loaded.decoder
        automaton = loaded.automaton
        loadedWarnings = loaded.warnings
    }

    /// Decoding thread: waits for the background load; the decoder, or nil when the load
    /// failed (the run then ends with its error).
    func finishLoading(_ stage: LaggingStage) -> PocketSphinxDecoder? {
        guard let loading else { return nil }
        self.loading = nil
        switch loading.wait() {
        case .success(let loaded):
            take(loaded)  // the run has started: its warnings go out now
            for w in loaded.warnings { stage.emit(.warning(node: nodeId, message: w), at: 0) }
            return loaded.decoder
        case .failure(let error):
            fail(error, stage)
            return nil
        }
    }

    /// Decoding thread: ends the run with `error` (a load that failed, or the search over the
    /// language model that could not be built when speech came).
    func fail(_ error: EngineError, _ stage: LaggingStage) {
        loadFailure.withLock { $0 = error }
        loadFailed.store(true, ordering: .releasing)
        stage.cancel()  // a render thread waiting for queue space stops waiting
    }

    /// PocketSphinx's load (any thread): the decoder, its grammar automaton and the load's
    /// warnings. `coverage`: the language model's, known when `dictionary` is its cut (else
    /// counted here, and the cut made for the next load). With `preparingLater` the preview
    /// search and warm-up wait for `prepareForSpeech` (the decoding thread's; not with a
    /// vocabulary, whose model the preview must not be cut from). Errors name the parameter of
    /// the search.
    func load(dictionary: String, vocabulary: Vocabulary?, warnings: [String],
              coverage known: LanguageModelDictionary.Coverage?,
              preparingLater: Bool = false) throws(EngineError) -> LoadedDecoders.Entry {
        var warnings = warnings
        do throws(EngineError) {
            // With the model's coverage known (recorded in its cut), the search over it waits for
            // speech too; counting the coverage needs the search.
            let d = try PocketSphinxDecoder(hmm: hmm, dict: dictionary, search: search, limits: limits,
                                            dropsSilence: finalPass == .utterance,
                                            preview: previewLimits, preparedLater: preparingLater,
                                            searchLater: preparingLater && known != nil)
            if let vocabulary, search.isLanguageModel, !vocabulary.phrases.isEmpty { try d.addVocabularyModel(vocabulary) }
            if case .keyphrase(let phrase, _) = search, let word = d.firstUnknownWord(in: phrase) {
                throw EngineError(.model, "\"\(word)\" is not in the dictionary \(dict)",
                                  suggestion: "spell the keyphrase with dictionary words")
            }
            if case .languageModel(let lm) = search {
                var words: LanguageModelDictionary.Coverage
                if let known {
                    words = known
                } else {
                    let counted = d.languageModelWords()
                    words = counted.coverage
                    // Counted over the dictionary alone (no vocabulary), the count is the cut's.
                    if wake == nil && vocabulary == nil {
                        LanguageModelDictionary.store(dict: dict, lm: lm, words: counted.words, coverage: words)
                    }
                }
                // A few missing words are usual (the en-us model lacks none); many mean a
                // dictionary for another language model.
                if words.missing > 0 && words.missing * 100 >= words.total {
                    warnings.append("\(words.missing) of the \(words.total) words of the language model \(lm) have no pronunciation in the dictionary \(dict) and cannot be recognised (e.g. \(words.examples.joined(separator: ", ")))")
                }
            }
            let automaton = d.grammarAutomaton()
            if !preparingLater { d.warmUp() }
            return .init(decoder: d, automaton: automaton, warnings: warnings)
        } catch {
            var e = error
            if e.parameter != nil { throw e }
            if e.message.contains("missing in the dictionary") {
                e.message += " \(dict)"
                e.suggestion = "add the word to a vocabulary file (the recognizer's vocabulary parameter)"
            }
            e.parameter = switch search {
            case .grammar: "grammar"
            case .keyphrase: "keyphrase"
            case .languageModel: "lm"
            }
            throw e
        }
    }

    /// What this recognizer's decoder is kept under when models are kept loaded
    /// (``SpeechModel/keepsLoadedModels``); nil when it is not kept (assistant mode: the
    /// wake-word spotter is a second decoder tied to this one).
    var reuseKey: String? {
        guard LoadedDecoders.shared.keeping, wake == nil else { return nil }
        let searchText: String, files: [String]
        switch search {
        case .languageModel(let lm): (searchText, files) = ("lm", [lm])
        case .grammar(let g): (searchText, files) = ("jsgf", [g])
        case .keyphrase(let k, let t): (searchText, files) = ("kws \(k) \(t)", [])
        }
        return LoadedDecoders.key(
            [hmm, searchText, "\(limits.hmms)/\(limits.wordExits)\(limits.secondPass ? "" : "/1")", finalPass.rawValue,
             previewLimits.map { "\($0.hmms)/\($0.wordExits)" } ?? "-"],
            files: [hmm + "/mdef", hmm + "/means", dict] + files + (vocabularyPath.map { [$0] } ?? []))
    }
}
