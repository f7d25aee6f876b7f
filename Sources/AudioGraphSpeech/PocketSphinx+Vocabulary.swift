import AudioGraphCore
import CPocketSphinx
import Foundation

extension PocketSphinxDecoder {
    /// The share of the language model the vocabulary's own model gets when the two are
    /// interpolated: a new word's probability is this share of the vocabulary model's.
    static let vocabularyWeight: Float = 0.01

    /// The fewest words a new word's share of the vocabulary's model is divided among. A
    /// vocabulary of one new word gave it the whole share (0.01, nearly as likely as "a"), and it
    /// replaced unrelated speech ("blind man" heard as "aligner"); 22 is the size at which
    /// the vocabulary bench measured its words found and the corpus unharmed.
    static let vocabularyWordsAtLeast = 22

    /// Gives the vocabulary's words and phrases language-model weight: a small model of its
    /// own (each word a unigram, each phrase's word pairs a bigram) interpolated with the
    /// language model as read, and the search over the language model is built again over the
    /// two (whether it is there or not). The words must be in the dictionary already.
    func addVocabularyModel(_ vocabulary: Vocabulary) throws(EngineError) {
        guard let main = loadedLanguageModel ?? Self.languageModel(of: decoder).flatMap({ ngram_model_retain($0) }) else {
            throw EngineError(.model, "the vocabulary needs the recognizer's language model", parameter: "vocabulary")
        }
        loadedLanguageModel = main
        let arpa = FileManager.default.temporaryDirectory.appendingPathComponent("audiograph-\(UUID().uuidString).arpa").path
        defer { try? FileManager.default.removeItem(atPath: arpa) }
        do { try Data(Self.arpa(vocabulary).utf8).write(to: URL(fileURLWithPath: arpa)) } catch {
            unlink(arpa)  // what a full disk took of it
            throw EngineError(.io, "cannot write the vocabulary's language model: \(FileFailure.reason(error))", file: arpa,
                              parameter: "vocabulary", suggestion: "free space in the temporary folder, or set TMPDIR to another")
        }
        guard let own = ngram_model_read(config, arpa, NGRAM_ARPA, logmath_retain(logmath)) else {
            throw EngineError(.model, "PocketSphinx rejected the vocabulary's language model: \(Self.lastError())",
                              parameter: "vocabulary")
        }
        defer { ngram_model_free(own) }  // the set keeps its own references
        var models: [OpaquePointer?] = [main, own]
        var names: [UnsafeMutablePointer<CChar>?] = [strdup("default"), strdup("vocabulary")]
        defer { for n in names { free(n) } }
        var weights: [Float] = [1 - Self.vocabularyWeight, Self.vocabularyWeight]
        let combined = models.withUnsafeMutableBufferPointer { m in
            names.withUnsafeMutableBufferPointer { n in
                ngram_model_set_init(config, m.baseAddress, n.baseAddress, &weights, 2)
            }
        }
        guard let combined else {
            throw EngineError(.model, "cannot combine the vocabulary with the language model", parameter: "vocabulary")
        }
        defer { ngram_model_free(combined) }  // the search keeps its own reference
        guard ps_set_lm(decoder, Self.mainSearch, combined) >= 0, ps_set_search(decoder, Self.mainSearch) >= 0 else {
            throw EngineError(.model, "PocketSphinx could not search with the vocabulary: \(Self.lastError())",
                              parameter: "vocabulary")
        }
        self.vocabulary = vocabulary
    }

    /// Adds words and phrases while no utterance is open: the new words join the dictionary
    /// and the vocabulary model is made again over every phrase so far (the search is rebuilt,
    /// about 0.15 s with Debian's en-us model). The first words' preview search is dropped (a
    /// later first partial, the same results).
    ///
    /// PocketSphinx's `ps_add_word` adds a word to every n-gram search's model as well, and
    /// Debian's binary (trie) models cannot take one: scoring it reads past their tables (a
    /// crash at a hundred new words, wrong scores with fewer). So the n-gram searches are
    /// freed while the words join the dictionary, and the language model as read never has
    /// them: the vocabulary's own model does, as when the words come from a file at the load.
    func addVocabulary(_ more: Vocabulary) throws(EngineError) {
        precondition(!inUtterance, "words are added between utterances")
        pendingPreview = nil  // a preview waiting to be built would only be dropped below
        prepareForSpeech()  // the main search built and warmed up, if it waits for speech
        attachMainSearch()
        if let searchFailure { throw searchFailure }
        guard let searched = Self.languageModel(of: decoder).flatMap({ ngram_model_retain($0) }) else {
            throw EngineError(.model, "the vocabulary needs the recognizer's language model", parameter: "vocabulary")
        }
        defer { ngram_model_free(searched) }
        if loadedLanguageModel == nil { loadedLanguageModel = ngram_model_retain(searched) }
        if hasPreview {
            hasPreview = false
            _ = ps_unset_search(decoder, Self.previewSearch)
        }
        _ = ps_unset_search(decoder, Self.mainSearch)
        do throws(EngineError) {
            for w in more.words where ps_add_word(decoder, w.spelling, w.phones.joined(separator: " "), 0) < 0 {
                throw EngineError(.model, "PocketSphinx would not add \"\(w.spelling)\" to the dictionary: \(Self.lastError())",
                                  parameter: "vocabulary")
            }
            try addVocabularyModel(vocabulary.map { $0.merged(with: more) } ?? more)
        } catch {
            // The search as it was (the words the dictionary took stay there, unsearched).
            _ = ngram_model_retain(searched)
            _ = buildMainSearch(searched)
            _ = ps_set_search(decoder, Self.mainSearch)
            throw error
        }
    }

    /// The vocabulary as an ARPA model: its new words share the unigram mass (each at most
    /// `1 / vocabularyWordsAtLeast` of it, the rest left unused); every pair of
    /// words inside a phrase is a likely bigram. Words the
    /// dictionary had get no unigram mass here (the main model knows them), only their
    /// place in the phrases. Log10 probabilities.
    static func arpa(_ vocabulary: Vocabulary) -> String {
        let new = Set(vocabulary.words.map(\.spelling))
        var unigrams = Set(["<s>", "</s>"]).union(new)
        var bigrams = Set<String>()
        for phrase in vocabulary.phrases {
            let words = phrase.split(separator: " ").map(String.init)
            unigrams.formUnion(words)
            // Inside the phrase only: a phrase may come anywhere in what is said (bigrams from
            // the sentence start made its first word likely at every utterance's start).
            for (a, b) in zip(words, words.dropFirst()) { bigrams.insert("\(a) \(b)") }
        }
        let uni = unigrams.sorted(), bi = bigrams.sorted()
        let p = log10(1 / Double(max(new.count, vocabularyWordsAtLeast)))
        func f(_ x: Double) -> String { String(format: "%.4f", x) }
        var text = "\\data\\\nngram 1=\(uni.count)\nngram 2=\(bi.count)\n\n\\1-grams:\n"
        for w in uni { text += "\(f(new.contains(w) ? p : -99)) \(w) \(f(0))\n" }
        text += "\n\\2-grams:\n"
        for b in bi { text += "\(f(log10(0.5))) \(b)\n" }
        return text + "\n\\end\\\n"
    }
}
