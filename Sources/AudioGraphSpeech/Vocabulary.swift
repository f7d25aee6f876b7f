import AudioGraphConversation
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

    /// New words (not in the dictionary before), in order, each once.
    var words: [Word] = []
    /// Every phrase (single words included), lowercased, words separated by one space.
    var phrases: [String] = []
    /// Words left out, each with why (no pronunciation could be made).
    var skipped: [String] = []

    /// One checked entry: its words, the pronunciation given, and where it came from.
    private struct Checked {
        var words: [String]
        var phones: [String]?
        var place: String
    }

    /// Reads `path`. `phones`: the model's phone set; `known`: whether the dictionary the
    /// decoder loads has a word; `lookUp`: pronunciations another dictionary has for words it
    /// lacks (the rest get flite's). Throws for a malformed line (naming file and line) and
    /// for phones the model lacks (naming them).
    init(path: String, phones: Set<String>, known: (String) -> Bool,
         lookUp: (Set<String>) -> [String: [String]] = { _ in [:] }) throws(EngineError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EngineError(.io, "cannot read the vocabulary", file: path, parameter: "vocabulary")
        }
        guard let text = TextBytes.utf8([UInt8](data)) else {
            throw EngineError(.model, "is \(TextBytes.notUTF8([UInt8](data)))", file: path, parameter: "vocabulary")
        }
        var entries: [Checked] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .init(charactersIn: "\r"))
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            let given = parts.count == 2 ? parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) : nil
            let at = "line \(index + 1)"
            entries.append(try Self.check(String(parts[0]), given, phones: phones, place: "\(path) \(at)") { message in
                EngineError(.model, "\(at): \(message)", file: path, parameter: "vocabulary")
            })
        }
        self.init(entries, known: known, lookUp: lookUp, phones: phones)
    }

    /// The same from code: entry `i` is named "vocabulary entry i + 1" in errors and warnings.
    init(entries: [VocabularyEntry], phones: Set<String>, known: (String) -> Bool,
         lookUp: (Set<String>) -> [String: [String]] = { _ in [:] }) throws(EngineError) {
        self.init(try Self.checked(entries, phones: phones), known: known, lookUp: lookUp, phones: phones)
    }

    /// Checks entries from code (spelling, phones) without pronouncing them; throws as `init`.
    static func check(_ entries: [VocabularyEntry], phones: Set<String>) throws(EngineError) {
        _ = try checked(entries, phones: phones)
    }

    private static func checked(_ entries: [VocabularyEntry], phones: Set<String>) throws(EngineError) -> [Checked] {
        var checked: [Checked] = []
        for (i, e) in entries.enumerated() {
            let place = "vocabulary entry \(i + 1) (\"\(e.text)\")"
            checked.append(try check(e.text, e.pronunciation, phones: phones, place: place) { message in
                EngineError(.model, "\(place): \(message)", parameter: "vocabulary")
            })
        }
        return checked
    }

    private init(_ entries: [Checked], known: (String) -> Bool, lookUp: (Set<String>) -> [String: [String]],
                 phones: Set<String>) {
        let unknown = Set(entries.flatMap(\.words).filter { !known($0) })
        // An accented word is looked up and pronounced as its a-z letters sound (`café`: cafe).
        let sounded = Set(unknown.compactMap { VocabularyEntry.folded($0) })
        let found = lookUp(unknown.union(sounded).union(sounded.flatMap(Self.parts)))
        var added = Set<String>()
        for e in entries {
            phrases.append(e.words.joined(separator: " "))
            for w in e.words where !added.contains(w) {
                if known(w) {
                    if e.phones != nil { skipped.append("\(e.place): \"\(w)\" is in the dictionary already; its pronunciation there is kept") }
                    continue
                }
                let ascii = VocabularyEntry.folded(w) ?? w
                let made = e.phones ?? found[w] ?? found[ascii] ?? Self.pronunciation(of: ascii, found)
                if let p = made, p.allSatisfy(phones.contains) {
                    words.append(Word(spelling: w, phones: p))
                    added.insert(w)
                } else {
                    // flite makes the pronunciations the dictionaries lack; say so when it could not.
                    let why = made == nil ? Flite.failure.map { "flite cannot be loaded to make its pronunciation (\($0))" } : nil
                    skipped.append("\(e.place): \"\(w)\" was left out: \(why ?? "no pronunciation could be made for it")")
                }
            }
        }
    }

    /// Checks one word or phrase and its pronunciation; `fail` makes the error for a message.
    private static func check(_ text: String, _ given: [String]?, phones: Set<String>, place: String,
                              fail: (String) -> EngineError) throws(EngineError) -> Checked {
        let spelled = text.lowercased().replacingOccurrences(of: "\u{2019}", with: "'")
            .split(whereSeparator: { $0 == " " }).map(String.init)
        guard !spelled.isEmpty else { throw fail(given == nil ? "no word" : "a pronunciation without a word") }
        for w in spelled where !VocabularyEntry.isSpelled(w) {
            let digits = w.contains { $0.isNumber } ? " (numbers as words: \"nineteen\")" : ""
            throw fail("\"\(w)\": words are letters (a-z, or accented: é), apostrophes and hyphens between letters\(digits)")
        }
        guard let given else { return Checked(words: spelled, phones: nil, place: place) }
        let p = given.map { $0.uppercased() }
        guard !p.isEmpty else { throw fail("a tab but no pronunciation after it") }
        guard spelled.count == 1 else { throw fail("a pronunciation belongs to one word, not a phrase") }
        let unknown = p.filter { !phones.contains($0) || $0.hasPrefix("+") || $0 == "SIL" }
        guard unknown.isEmpty else {
            let speech = phones.filter { !$0.hasPrefix("+") && $0 != "SIL" }.sorted()
            throw fail("phones the model lacks: \(unknown.joined(separator: " ")) (it has \(speech.joined(separator: " ")))")
        }
        return Checked(words: spelled, phones: p, place: place)
    }

    /// The parts of a hyphenated word (`x-box`: x, box); none for another.
    private static func parts(_ word: String) -> [String] {
        word.contains("-") ? word.split(separator: "-").map(String.init) : []
    }

    /// flite's pronunciation of `word`; a hyphenated one's is its parts' in turn, each the
    /// dictionary's (`found`) or flite's (flite's rules read a hyphen as a pause).
    private static func pronunciation(of word: String, _ found: [String: [String]]) -> [String]? {
        let parts = parts(word)
        guard !parts.isEmpty else { return FliteLexicon.pronunciation(of: word) }
        var phones: [String] = []
        for part in parts {
            guard let p = found[part] ?? FliteLexicon.pronunciation(of: part) else { return nil }
            phones += p
        }
        return phones
    }

    /// This vocabulary and `other`'s words and phrases (for a model over both).
    func merged(with other: Vocabulary) -> Vocabulary {
        var v = self
        let have = Set(words.map(\.spelling))
        v.words += other.words.filter { !have.contains($0.spelling) }
        v.phrases += other.phrases
        v.skipped += other.skipped
        return v
    }

    /// A temporary copy of dictionary `dict` with `words` added (remove it once loaded).
    static func dictionary(_ dict: String, adding words: [Word]) throws(EngineError) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("audiograph-\(UUID().uuidString).dict").path
        guard var text = FileManager.default.contents(atPath: dict) else {
            throw EngineError(.io, "cannot read the dictionary", file: dict, parameter: "dict")
        }
        if text.last != UInt8(ascii: "\n") { text.append(UInt8(ascii: "\n")) }
        for w in words { text.append(contentsOf: Array("\(w.spelling) \(w.phones.joined(separator: " "))\n".utf8)) }
        do { try text.write(to: URL(fileURLWithPath: path)) } catch {
            unlink(path)  // what a full disk took of it
            throw EngineError(.io, "cannot write a dictionary with the vocabulary: \(FileFailure.reason(error))", file: path,
                              parameter: "vocabulary", suggestion: "free space in the temporary folder, or set TMPDIR to another")
        }
        return path
    }
}
