import CPocketSphinx
import CPocketSphinxSupport

/// The first words' preview search: a cheaper second search over the same model, which a
/// session's first utterance runs before the full search (``PocketSphinxDecoder/preview(_:count:)``).
extension PocketSphinxDecoder {
    /// Name of the cheaper search (see ``preview(_:count:)``).
    static let previewSearch = "preview"

    /// Adds a search over the decoder's language model cut to its `previewVocabulary` most
    /// likely words, sharing the dictionary, acoustic model and front end, that keeps fewer
    /// HMMs and word exits per frame. PocketSphinx reads a search's limits from the
    /// configuration when the search is made, so they are set for that moment only. It keeps
    /// the second (fwdflat) pass, as a search without one would stop the shared front end from
    /// keeping a whole utterance's features, which the main search's second pass needs, but
    /// with narrow beams (it only ever runs over a preview's few tenths of a second).
    /// `model` is the n-gram model the main search is made over; the current search stays.
    static func addPreviewSearch(_ ps: OpaquePointer, _ cfg: OpaquePointer, over model: OpaquePointer, _ preview: Limits,
                                 restoring limits: Limits) -> Bool {
        guard let lm = ag_top_words_lm(model, cfg, previewVocabulary) else { return false }
        defer { ngram_model_free(lm) }  // the search keeps its own reference
        let flatBeam = cmd_ln_float_r(cfg, "-fwdflatbeam"), flatWordBeam = cmd_ln_float_r(cfg, "-fwdflatwbeam")
        let bestpath = cmd_ln_int_r(cfg, "-bestpath")
        func set(_ l: Limits, _ beam: Double, _ wordBeam: Double, _ best: Int) {
            cmd_ln_set_int_r(cfg, "-maxhmmpf", l.hmms)
            cmd_ln_set_int_r(cfg, "-maxwpf", l.wordExits)
            cmd_ln_set_float_r(cfg, "-fwdflatbeam", beam)
            cmd_ln_set_float_r(cfg, "-fwdflatwbeam", wordBeam)
            cmd_ln_set_int_r(cfg, "-bestpath", best)
        }
        set(preview, 1e-10, 1e-10, 0)
        let added = ps_set_lm(ps, previewSearch, lm) >= 0
        set(limits, flatBeam, flatWordBeam, bestpath)
        return added
    }

    /// The n-gram model the main search was made over (the member of the search's model set).
    static func languageModel(of ps: OpaquePointer) -> OpaquePointer? {
        ps_get_lm(ps, mainSearch).flatMap { ngram_model_set_lookup($0, "default") }
    }

    /// Words the preview search knows: the most likely ones, so the search loads in less time
    /// and memory than one over the whole 134k-word model (TUNING.md).
    static let previewVocabulary: Int32 = 10000
}
