import AudioGraphCore
import Foundation

/// Words and phrases from code: checked when given, added by the decoding thread before the
/// first utterance or between two (never inside one), for the rest of the run.
extension Recognizer {
    /// Adds words and phrases to recognise from the next utterance on, with a language model
    /// (a grammar or key phrase takes its words from the `vocabulary` file, read before the
    /// grammar is built). Entries are checked here: a malformed one, or phones the model
    /// lacks, throws naming the entry. Words that get no pronunciation are left out with a
    /// `warning` event. Any thread. Adding rebuilds the search (about 0.15 s on the decoding
    /// thread, audio waiting meanwhile); a decoder given words this way is not kept for later
    /// sessions (``SpeechModel/keepsLoadedModels``).
    public func addVocabulary(_ entries: [VocabularyEntry]) throws(EngineError) {
        guard case .languageModel = search else {
            throw EngineError(.model, "words from code need a language model; a grammar or key phrase takes its words from the vocabulary file",
                              node: nodeId, parameter: "vocabulary")
        }
        do {
            // Spelling and phones now; whether the dictionary knows the words, on the decoding thread.
            try Vocabulary.check(entries, phones: try modelPhones())
        } catch {
            throw error.atNode(nodeId)
        }
        pendingVocabulary.withLock { $0.append(entries) }
    }

    /// The acoustic model's phones (read once).
    func modelPhones() throws(EngineError) -> Set<String> {
        if let known = modelPhoneSet.withLock({ $0 }) { return known }
        let phones: Set<String>
        do {
            phones = Set(try AcousticModelCheck.check(hmm).phones)
        } catch {
            throw EngineError(.model, error.message, file: error.file, node: nodeId, parameter: "hmm")
        }
        modelPhoneSet.withLock { $0 = phones }
        return phones
    }

    /// Decoding thread: adds what `addVocabulary` queued, if the decoder has no utterance open
    /// (a tentative part may be decoding between the vad's utterances); else it stays queued.
    func addPendingVocabulary(_ decoder: PocketSphinxDecoder, _ stage: LaggingStage, at time: Double) {
        guard !decoder.inUtterance else { return }
        let batches = pendingVocabulary.withLock { b in
            defer { b = [] }
            return b
        }
        guard !batches.isEmpty else { return }
        keptKey = nil
        do {
            let phones = try modelPhones()
            var all: Vocabulary?
            for entries in batches {
                let v = try Vocabulary(entries: entries, phones: phones, known: decoder.knows,
                                       lookUp: { PronunciationDictionary.pronunciations(of: $0, in: dict) })
                all = all.map { $0.merged(with: v) } ?? v
                for w in v.skipped { stage.emit(.warning(node: nodeId, message: w), at: time) }
            }
            if let all { try decoder.addVocabulary(all) }
        } catch {
            stage.emit(.warning(node: nodeId, message: "the words from code were not added: \(error.message)"), at: time)
        }
    }
}
