/// What a decoder searches, and how widely.
extension PocketSphinxDecoder {
    /// What to recognise.
    enum Search {
        case languageModel(String)
        case grammar(String)
        case keyphrase(String, threshold: Double)

        var isLanguageModel: Bool { if case .languageModel = self { true } else { false } }
    }

    /// Histogram pruning: the search keeps at most this much per 10 ms frame; and whether a
    /// language model's search runs its second pass.
    struct Limits {
        var hmms: Int
        var wordExits: Int
        /// PocketSphinx's flat-lexicon second pass (`-fwdflat`) over each part as it closes.
        var secondPass = true
    }
}
