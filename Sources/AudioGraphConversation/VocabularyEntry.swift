/// A word or phrase for the recognizer to hear beyond its dictionary, given from code
/// (`RecognitionSession.addVocabulary`; the `vocabulary` parameter's file holds the same, one
/// per line).
public struct VocabularyEntry: Sendable, Hashable {
    /// A word or a phrase: letters a-z and apostrophes, words separated by spaces.
    public var text: String
    /// A single word's phones in the model's phone set (`["R", "AA", "M", "AH", "N"]`); nil
    /// to take the dictionary's, or flite's lexicon and letter-to-sound rules'.
    public var pronunciation: [String]?

    /// A word or phrase, with a single word's pronunciation if you know it.
    public init(_ text: String, pronunciation: [String]? = nil) {
        self.text = text
        self.pronunciation = pronunciation
    }
}
