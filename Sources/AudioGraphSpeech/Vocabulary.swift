import AudioGraphCore
import Foundation

/// Words and phrases the recognizer should know beyond its dictionary (the `vocabulary`
/// parameter): a text file, one word or phrase per line; a single word may carry its
/// pronunciation after a tab, in the model's phones (`ramen\tR AA M AH N`). Blank lines and
/// lines starting with `#` are skipped. Words the dictionary lacks and the file does not
/// pronounce get a pronunciation from flite's US English lexicon and letter-to-sound rules.
struct Vocabulary {
    /// A word to add to the dictionary, with its phones.
    struct Word: Equatable {
        var spelling: String
        var phones: [String]
    }

    /// New words (not in the dictionary before), in file order, each once.
    var words: [Word] = []
    /// Every phrase of the file (single words included), lowercased, words separated by one space.
    var phrases: [String] = []
    /// Words left out, each with why (no pronunciation could be made).
    var skipped: [String] = []

    /// Reads `path`. `phones`: the model's phone set; `known`: whether the dictionary already
    /// has a word. Throws for a malformed line (naming file and line) and for phones the model
    /// lacks (naming them).
    init(path: String, phones: Set<String>, known: (String) -> Bool) throws(EngineError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EngineError(.io, "cannot read the vocabulary", file: path, parameter: "vocabulary")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw EngineError(.model, "is not UTF-8 text", file: path, parameter: "vocabulary")
        }
        var added = Set<String>()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .init(charactersIn: "\r"))
            let at = "line \(index + 1)"
            func fail(_ message: String) -> EngineError {
                EngineError(.model, "\(at): \(message)", file: path, parameter: "vocabulary")
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            let spelled = parts[0].lowercased().split(whereSeparator: { $0 == " " }).map(String.init)
            guard !spelled.isEmpty else { throw fail("a pronunciation without a word") }
            for w in spelled where !w.allSatisfy({ ("a"..."z").contains($0) || $0 == "'" }) || w.allSatisfy({ $0 == "'" }) {
                throw fail("\"\(w)\": words are letters a-z and apostrophes")
            }
            var given: [String]?
            if parts.count == 2 {
                let p = parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" }).map { String($0).uppercased() }
                guard !p.isEmpty else { throw fail("a tab but no pronunciation after it") }
                guard spelled.count == 1 else { throw fail("a pronunciation belongs to one word, not a phrase") }
                let unknown = p.filter { !phones.contains($0) || $0.hasPrefix("+") || $0 == "SIL" }
                guard unknown.isEmpty else {
                    let speech = phones.filter { !$0.hasPrefix("+") && $0 != "SIL" }.sorted()
                    throw fail("phones the model lacks: \(unknown.joined(separator: " ")) (it has \(speech.joined(separator: " ")))")
                }
                given = p
            }
            phrases.append(spelled.joined(separator: " "))
            for w in spelled where !added.contains(w) {
                if known(w) {
                    if given != nil { skipped.append("\(path) \(at): \"\(w)\" is in the dictionary already; its pronunciation there is kept") }
                    continue
                }
                if let p = given ?? FliteLexicon.pronunciation(of: w), p.allSatisfy(phones.contains) {
                    words.append(Word(spelling: w, phones: p))
                    added.insert(w)
                } else {
                    skipped.append("\(path) \(at): \"\(w)\" was left out: no pronunciation could be made for it")
                }
            }
        }
    }

    /// A temporary copy of dictionary `dict` with `words` added (remove it once loaded).
    static func dictionary(_ dict: String, adding words: [Word]) throws(EngineError) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("audiograph-\(UUID().uuidString).dict").path
        guard var text = FileManager.default.contents(atPath: dict) else {
            throw EngineError(.io, "cannot read the dictionary", file: dict, parameter: "dict")
        }
        if text.last != UInt8(ascii: "\n") { text.append(UInt8(ascii: "\n")) }
        for w in words { text.append(contentsOf: Array("\(w.spelling) \(w.phones.joined(separator: " "))\n".utf8)) }
        guard FileManager.default.createFile(atPath: path, contents: text) else {
            throw EngineError(.io, "cannot write a dictionary with the vocabulary", file: path, parameter: "vocabulary")
        }
        return path
    }
}
