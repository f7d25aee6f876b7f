/// A word or phrase for the recognizer to hear beyond its dictionary, given from code
/// (`RecognitionSession.addVocabulary`; the `vocabulary` parameter's file holds the same, one
/// per line).
public struct VocabularyEntry: Sendable, Hashable {
    /// A word or a phrase: letters a-z, apostrophes and hyphens inside a word (`wi-fi`,
    /// `rock'n'roll`), words separated by spaces.
    public var text: String
    /// A single word's phones in the model's phone set (`["R", "AA", "M", "AH", "N"]`); nil
    /// to take the dictionary's, or flite's lexicon and letter-to-sound rules'.
    public var pronunciation: [String]?

    /// Whether `word` is spelled as a vocabulary takes it: letters a-z and apostrophes, at least
    /// one letter; a hyphen joins two such parts (`e-mail`, `t-shirt`: the dictionary has a
    /// thousand words so spelled).
    public static func isSpelled(_ word: some StringProtocol) -> Bool {
        word.split(separator: "-", omittingEmptySubsequences: false).allSatisfy { part in
            part.allSatisfy { ("a"..."z").contains($0) || $0 == "'" } && part.contains { $0 != "'" }
        }
    }

    /// A word or phrase, with a single word's pronunciation if you know it.
    public init(_ text: String, pronunciation: [String]? = nil) {
        self.text = text
        self.pronunciation = pronunciation
    }
}
