import AudioGraph
import Foundation

/// A vosk-server client's `{"config": {...}}`: its fields checked as vosk-server's own names
/// and types, each bad one an error naming it (vosk-server drops the connection instead).
struct VoskConfig: Equatable {
    /// Hz of the binary frames that follow.
    var rate = 16000
    /// Words with times and confidences in finals (`result`).
    var words = false
    /// N-best alternatives in finals (0: none; at most 10).
    var alternatives = 0
    /// Phrases to recognise against (lowercase words a vocabulary takes, single spaces),
    /// each once, or nil for the whole language model.
    var phrases: [String]?

    /// Takes `c`'s fields; what is wrong with the first bad one, else nil. A config with a bad
    /// field changes nothing.
    mutating func apply(_ c: [String: Any]) -> String? {
        var next = self
        if let v = c["sample_rate"] {
            guard let r = JSONField.number(v)?.doubleValue else { return "sample_rate: expected a number of Hz" }
            guard (8000...192_000).contains(r) else { return "sample_rate \(r) out of range (8000-192000)" }
            next.rate = Int(r)
        }
        if let v = c["words"] {
            guard let w = JSONField.boolean(v) ?? JSONField.number(v).map({ $0.doubleValue != 0 }) else { return "words: expected true or false" }
            next.words = w
        }
        if let v = c["max_alternatives"] {
            guard let a = JSONField.number(v)?.doubleValue, a >= 0, a == a.rounded() else { return "max_alternatives: expected a whole number from 0" }
            next.alternatives = Int(min(10, a))  // more than the recognizer's 10 gives 10
        }
        if let v = c["phrase_list"] {
            guard let list = v as? [Any], let texts = list as? [String] else { return "phrase_list: expected a list of strings" }
            // Phrases of words a vocabulary takes (letters, accented too; apostrophes, inner hyphens); a phrase with
            // another word is left out (vosk-server leaves out what its model lacks; "[unk]"
            // among them). Each once, in order: a repeated one adds nothing to the grammar.
            var seen = Set<String>()
            next.phrases = texts.compactMap { phrase -> String? in
                let words = phrase.lowercased().split(separator: " ")
                return words.isEmpty || !words.allSatisfy(VocabularyEntry.isSpelled) ? nil : words.joined(separator: " ")
            }.filter { seen.insert($0).inserted }
        }
        self = next
        return nil
    }
}
