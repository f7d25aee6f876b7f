import AudioGraphConversation
import AudioGraphCore

extension Recognizer {
    /// Adds words and phrases to recognise from the next utterance on, with a language model
    /// (a grammar or key phrase takes its words from the `vocabulary` file, read before the
    /// grammar is built). Entries are checked here: a malformed one, or phones the model
    /// lacks, throws naming the entry. Words that get no pronunciation are left out with a
    /// `warning` event. Any thread. Adding rebuilds the search (about 0.15 s on the decoding
    /// thread, audio waiting meanwhile); a decoder given words this way is not kept for later
    /// sessions (``SpeechModel/keepsLoadedModels``).
    public func addVocabulary(_ entries: [VocabularyEntry]) throws(EngineError) {
        try words.add(entries)
    }
}
