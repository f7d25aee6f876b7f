import Foundation

/// A word or phrase for the recognizer to hear beyond its dictionary, given from code
/// (`RecognitionSession.addVocabulary`; the `vocabulary` parameter's file holds the same, one
/// per line).
public struct VocabularyEntry: Sendable, Hashable {
    /// A word or a phrase: letters (a-z, and accented ones: `café`), apostrophes and hyphens
    /// inside a word (`wi-fi`, `rock'n'roll`), words separated by spaces.
    public var text: String
    /// A single word's phones in the model's phone set (`["R", "AA", "M", "AH", "N"]`); nil
    /// to take the dictionary's, or flite's lexicon and letter-to-sound rules'.
    public var pronunciation: [String]?

    /// Whether `word` is spelled as a vocabulary takes it: letters and apostrophes, at least
    /// one letter; a hyphen joins two such parts (`e-mail`, `t-shirt`: the dictionary has a
    /// thousand words so spelled). A letter is a-z, or one that ``folded(_:)`` makes a-z of
    /// (`zoë`, `beyoncé`, `straße`).
    public static func isSpelled(_ word: some StringProtocol) -> Bool {
        guard let ascii = folded(word) else { return false }
        return ascii.split(separator: "-", omittingEmptySubsequences: false).allSatisfy { part in
            part.allSatisfy { ("a"..."z").contains($0) || $0 == "'" } && part.contains { $0 != "'" }
        }
    }

    /// `word` lowercased in a-z, apostrophes and hyphens, as the model's US English letters
    /// sound it: accents dropped (`é`, `ë`, `ñ`, `å` as `e`, `e`, `n`, `a`), `æ œ ø ß ł đ ð þ`
    /// as `ae oe o ss l d d th`, a typographic apostrophe (’) as '; nil for a character none
    /// of these makes a letter of (a digit, `ж`, `€`). A word is recognised as it is spelled;
    /// this is only how it is pronounced.
    public static func folded(_ word: some StringProtocol) -> String? {
        var out = ""
        for scalar in String(word).lowercased().decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar {
            case "a"..."z", "'", "-": out.unicodeScalars.append(scalar)
            case "\u{2019}": out += "'"
            case "æ": out += "ae"
            case "œ": out += "oe"
            case "ø": out += "o"
            case "ß": out += "ss"
            case "ł": out += "l"
            case "đ", "ð": out += "d"
            case "þ": out += "th"
            case "ı": out += "i"
            default:
                // Combining marks (the accents decomposition split off) are dropped.
                guard scalar.properties.generalCategory == .nonspacingMark else { return nil }
            }
        }
        return out
    }

    /// A word or phrase, with a single word's pronunciation if you know it.
    public init(_ text: String, pronunciation: [String]? = nil) {
        self.text = text
        self.pronunciation = pronunciation
    }
}
