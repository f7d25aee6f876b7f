import AudioGraphCore
import CPocketSphinx
import CPocketSphinxSupport

/// Getting a decoder ready for speech only when speech comes: the search over the language
/// model, the first words' preview search and the warm-up, with the two searches never in
/// memory at once.
extension PocketSphinxDecoder {
    /// Builds the search over the language model and the preview search if they wait to be
    /// built, then warms up, if not done yet: what a decoder needs before its first utterance,
    /// and nothing more (a stream with no speech never pays for it). Results are those of a
    /// decoder prepared at load. Opening an utterance and adding words do it first; a caller
    /// with nothing else to do (a decoding thread waiting for audio) may do it sooner. Cheap
    /// once done.
    ///
    /// The two searches never exist at once here: the warm-up runs on the main search, which
    /// is then set aside (freed, its model kept) while the preview's exists, and built again
    /// once the preview is dropped (``dropPreview()``), or when the main search is needed
    /// first. A search built again gives the same results as the one warmed up (the warm-up
    /// leaves its trace in the shared acoustic model, not in the search); it costs the
    /// search's building time once more (~0.1 s) and saves the preview's memory at the peak
    /// (17 MB: TUNING.md).
    func prepareForSpeech() {
        guard awaitsPreparation else { return }
        awaitsPreparation = false
        if let model = pendingLanguageModel {
            pendingLanguageModel = nil
            guard buildMainSearch(model) else { return }
        }
        warmUp()
        if let preview = pendingPreview, let model = Self.languageModel(of: decoder) {
            pendingPreview = nil
            ngram_model_retain(model)
            _ = ps_unset_search(decoder, Self.mainSearch)
            Self.releaseFreeMemory()  // a decoder prepared while waiting for speech waits lighter
            setAsideModel = model
            hasPreview = Self.addPreviewSearch(decoder, config, over: model, preview, restoring: limits)
            if !hasPreview { attachMainSearch() }
        }
    }

    /// Builds the main search over `model` (whose reference it takes) and selects it; on
    /// failure records why, and the decoder decodes nothing.
    func buildMainSearch(_ model: OpaquePointer) -> Bool {
        var fatal: Int32 = 0
        ag_ps_capture_log()
        guard ag_ps_set_lm_guarded(decoder, model, &fatal) != 0 else {
            brokenByFatalError = fatal != 0
            let reason = Self.lastError()
            searchFailure = EngineError(.model, reason.isEmpty ? "PocketSphinx could not build the search over the language model" : reason,
                                        parameter: "lm")
            return false
        }
        return true
    }

    /// Whether the main search is set aside while the preview's exists (``prepareForSpeech()``).
    var mainSearchIsSetAside: Bool { setAsideModel != nil }

    /// Makes the main search the current one, if it is there: not waiting to be built, set
    /// aside for the preview's, or failed.
    func selectMainSearch() {
        guard pendingLanguageModel == nil, setAsideModel == nil, searchFailure == nil else { return }
        _ = ps_set_search(decoder, Self.mainSearch)
    }

    /// Builds the main search again if it was set aside for the preview's (the preview stays).
    func attachMainSearch() {
        guard let model = setAsideModel else { return }
        setAsideModel = nil
        _ = buildMainSearch(model)
    }
}
