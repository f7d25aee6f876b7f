/// What a decoder searches, and how widely.
extension PocketSphinxDecoder {
    /// What to recognise.
    enum Search {
        case languageModel(String)
        case grammar(String)
        case keyphrase(String, threshold: Double)

        var isLanguageModel: Bool { if case .languageModel = self { true } else { false } }
    }

    /// Histogram pruning: the search keeps at most this much per 10 ms frame; whether a
    /// language model's search runs its second pass; how many Gaussians score each state.
    struct Limits {
        var hmms: Int
        var wordExits: Int
        /// PocketSphinx's flat-lexicon second pass (`-fwdflat`) over each part as it closes.
        var secondPass = true
        /// The best Gaussians of each codebook that score a senone per frame (`-topn`;
        /// PocketSphinx's default is 4): the acoustic scoring is half of the decoder's cost.
        var gaussians = 4
    }
}
