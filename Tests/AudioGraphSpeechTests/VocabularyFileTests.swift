import AudioGraphConversation
import AudioGraphCore
@testable import AudioGraphSpeech
import Foundation
import Testing

/// The vocabulary file's format, and flite's lexicon in the model's phone set.
@Suite struct VocabularyFileTests {
    static let phones: Set<String> = ["AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH",
                                      "IH", "IY", "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH",
                                      "UH", "UW", "V", "W", "Y", "Z", "ZH", "SIL"]

    /// The vocabulary file `text` read against a dictionary knowing `known`; with `dictionary`,
    /// the whole dictionary (its lines) the words it lacks are looked up in.
    func vocabulary(_ text: String, known: Set<String> = ["find", "restaurants"], dictionary: String? = nil) throws -> Vocabulary {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vocab-\(UUID().uuidString).txt")
        try text.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        guard let dictionary else { return try Vocabulary(path: url.path, phones: Self.phones, known: { known.contains($0) }) }
        let dict = FileManager.default.temporaryDirectory.appendingPathComponent("dict-\(UUID().uuidString).dict")
        try dictionary.write(to: dict, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: dict) }
        return try Vocabulary(path: url.path, phones: Self.phones, known: { known.contains($0) },
                              lookUp: { PronunciationDictionary.pronunciations(of: $0, in: dict.path) })
    }

    @Test func flitesPhonesAreTheModels() {
        #expect(FliteLexicon.phone("ax0") == "AH" && FliteLexicon.phone("ow1") == "OW" && FliteLexicon.phone("hh") == "HH")
        #expect(FliteLexicon.pronunciation(of: "ramen") == ["R", "AA", "M", "AH", "N"])
        // No vowel letter, or nothing from the letter-to-sound rules: each letter's name ("a"
        // is "ey", not the article).
        #expect(FliteLexicon.pronunciation(of: "djh") == ["D", "IY", "JH", "EY", "EY", "CH"])
        #expect(FliteLexicon.pronunciation(of: "xkcd") == ["EH", "K", "S", "K", "EY", "S", "IY", "D", "IY"])
        #expect(FliteLexicon.pronunciation(of: "mp's") == ["EH", "M", "P", "IY", "EH", "S"])
    }

    @Test func phrasesWordsAndPronunciations() throws {
        let v = try vocabulary("# comment\n\nRamen\tr aa m ah n\nfind shawarma restaurants\nshawarma\n")
        #expect(v.phrases == ["ramen", "find shawarma restaurants", "shawarma"])
        #expect(v.words.map(\.spelling) == ["ramen", "shawarma"], "each new word once, known ones left to the dictionary")
        #expect(v.words.first?.phones == ["R", "AA", "M", "AH", "N"])
        #expect(v.words.allSatisfy { $0.phones.allSatisfy(Self.phones.contains) })
    }

    /// From a Windows editor: a UTF-8 byte order mark is read past; UTF-16 is named.
    @Test func byteOrderMarks() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vocab-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data([0xEF, 0xBB, 0xBF] + Array("shawarma\n".utf8)).write(to: url)
        let marked = try Vocabulary(path: url.path, phones: Self.phones, known: { _ in false })
        #expect(marked.phrases == ["shawarma"])
        try Data([0xFF, 0xFE] + "shawarma\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }).write(to: url)
        let error = #expect(throws: EngineError.self) { try Vocabulary(path: url.path, phones: Self.phones, known: { _ in false }) }
        #expect(error?.message.contains("is not UTF-8 text (UTF-16: save it as UTF-8)") == true, "\(String(describing: error))")
    }

    @Test func aPronunciationForAKnownWordIsReported() throws {
        let v = try vocabulary("find\tF AY N D\n")
        #expect(v.words.isEmpty && v.skipped.count == 1 && v.skipped[0].contains("line 1"))
    }

    @Test func silenceIsNoPhoneOfAWord() {
        #expect(throws: EngineError.self) { try vocabulary("hum\tHH SIL M\n") }
    }

    @Test func aFileThatIsNotTextIsOneError() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vocab-\(UUID().uuidString).txt")
        try Data([0xFF, 0xFE, 0x0A]).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: EngineError.self) { try Vocabulary(path: url.path, phones: Self.phones, known: { _ in false }) }
        do { _ = try Vocabulary(path: url.path, phones: Self.phones, known: { _ in false }) } catch {
            #expect(error.message.contains("UTF-8") && error.file == url.path && error.parameter == "vocabulary")
        }
    }

    /// A word the loaded dictionary lacks (a cut to the language model's words) but the whole
    /// dictionary has is added with the whole dictionary's first pronunciation, not flite's.
    @Test func theWholeDictionaryPronouncesBeforeFlite() throws {
        let dict = FileManager.default.temporaryDirectory.appendingPathComponent("dict-\(UUID().uuidString).dict")
        try "ale EY L\nalehouse AA L AA\nalehouse(2) EY L HH AW S\n".write(to: dict, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: dict) }
        #expect(PronunciationDictionary.pronunciations(of: ["alehouse", "ramen"], in: dict.path) == ["alehouse": ["AA", "L", "AA"]])
        let v = try Vocabulary(entries: [VocabularyEntry("alehouse"), VocabularyEntry("ramen")], phones: Self.phones,
                               known: { $0 == "find" },
                               lookUp: { PronunciationDictionary.pronunciations(of: $0, in: dict.path) })
        #expect(v.words == [.init(spelling: "alehouse", phones: ["AA", "L", "AA"]),
                            .init(spelling: "ramen", phones: ["R", "AA", "M", "AH", "N"])])
    }

    /// Hyphenated words, as the dictionary spells a thousand of its own (`wi-fi`, `t-shirt`):
    /// taken, a new one pronounced part by part (the whole dictionary's, else flite's). They
    /// were refused with the whole file ("words are letters a-z and apostrophes"). A hyphen
    /// not between letters, and digits, are still refused, digits with how to write them.
    @Test func hyphenatedWordsAreTaken() throws {
        let v = try vocabulary("Wi-Fi\nturn on the wi-fi\nx-box\nrock'n'roll\n", known: ["turn", "on", "the"],
                               dictionary: "box B AA K S\nwi-fi W AY F AY\n")
        #expect(v.phrases == ["wi-fi", "turn on the wi-fi", "x-box", "rock'n'roll"])
        let x = try #require(FliteLexicon.pronunciation(of: "x"))
        #expect(v.words.map(\.spelling) == ["wi-fi", "x-box", "rock'n'roll"])
        #expect(v.words[0].phones == ["W", "AY", "F", "AY"] && v.words[1].phones == x + ["B", "AA", "K", "S"], "\(v.words)")
        for bad in ["-box", "x-", "x--box", "x-'"] {
            let e = #expect(throws: EngineError.self, "\(bad)") { try self.vocabulary("\(bad)\n") }
            #expect(e?.message.contains("hyphens between letters") == true, "\(bad): \(String(describing: e))")
        }
        let digits = #expect(throws: EngineError.self) { try self.vocabulary("covid-19\n") }
        #expect(digits?.message.contains("numbers as words") == true, "\(String(describing: digits))")
    }

    /// Accented names, as an assistant's contacts and places are spelled (`Zoë`, `José`,
    /// `Straße`): taken as spelled, pronounced as their a-z letters sound (the dictionary's
    /// `cafe` for `café`, flite's for the rest). They were refused with the whole file ("words
    /// are letters a-z"). A typographic apostrophe is the dictionary's; a letter of another
    /// script, a digit or a symbol is still refused, naming the word.
    @Test func accentedWordsAreTakenAsSpelledAndPronouncedAsTheyFold() throws {
        #expect(VocabularyEntry.folded("Zoë") == "zoe" && VocabularyEntry.folded("josé") == "jose")
        #expect(VocabularyEntry.folded("straße") == "strasse" && VocabularyEntry.folded("Ærø") == "aero")
        #expect(VocabularyEntry.folded("rock\u{2019}n\u{2019}roll") == "rock'n'roll")
        #expect(VocabularyEntry.folded("москва") == nil && VocabularyEntry.folded("b2b") == nil)
        let v = try vocabulary("call Zoë\ncafé\nJosé\ndon\u{2019}t stop\n", known: ["call", "don't", "stop"],
                               dictionary: "cafe K AE F EY\n")
        #expect(v.phrases == ["call zoë", "café", "josé", "don't stop"])
        #expect(v.words.map(\.spelling) == ["zoë", "café", "josé"])
        #expect(v.words[0].phones == FliteLexicon.pronunciation(of: "zoe"), "\(v.words)")
        #expect(v.words[1].phones == ["K", "AE", "F", "EY"], "the whole dictionary's cafe")
        #expect(v.words[2].phones == FliteLexicon.pronunciation(of: "jose"))
        for bad in ["москва", "naïve€"] {
            let e = #expect(throws: EngineError.self, "\(bad)") { try self.vocabulary("\(bad)\n") }
            #expect(e?.message.contains("\"\(bad)\": words are letters") == true, "\(bad): \(String(describing: e))")
        }
    }

    /// From code, a word no pronunciation can be made for (here: flite's needs a phone the
    /// model lacks) is left out with a warning naming the entry; the rest are kept.
    @Test func aWordFromCodeWithoutAPronunciationIsNamed() throws {
        let v = try Vocabulary(entries: [VocabularyEntry("ramen"), VocabularyEntry("find shawarma restaurants")],
                               phones: Self.phones.subtracting(["SH"]), known: { $0 == "find" || $0 == "restaurants" })
        #expect(v.words.map(\.spelling) == ["ramen"])
        #expect(v.phrases == ["ramen", "find shawarma restaurants"])
        #expect(v.skipped.count == 1 && v.skipped[0].contains("entry 2") && v.skipped[0].contains("\"shawarma\" was left out"),
                "\(v.skipped)")
    }

    /// A new word's unigram in the vocabulary's model: shared among the new words, but never
    /// more than a 22nd of it, so a vocabulary of one word does not make it as likely as "a".
    @Test func aFewNewWordsAreNotMadeAsLikelyAsTheCommonest() throws {
        func unigram(_ word: String, _ v: Vocabulary) -> Double? {
            for line in PocketSphinxDecoder.arpa(v).split(separator: "\n") {
                let fields = line.split(separator: " ").map(String.init)
                if fields.count == 3 && fields[1] == word { return Double(fields[0]) }
            }
            return nil
        }
        let one = try vocabulary("montreal forced aligner\naligner\tAH L AY N ER\n", known: ["montreal", "forced"])
        #expect(one.words.map(\.spelling) == ["aligner"])
        // 22 made-up words and "aligner": 23 new words.
        let few = try vocabulary("abcdefghijklmnopqrstuv".map { "zorb\($0)\tZ AO R B\n" }.joined() + "aligner\tAH L AY N ER\n")
        #expect(few.words.count == 23)
        #expect(abs(try #require(unigram("aligner", one)) - log10(1 / 22.0)) < 1e-4, "one word: a 22nd, not all of it")
        #expect(abs(try #require(unigram("aligner", few)) - log10(1 / 23.0)) < 1e-4, "23 words share it equally")
        #expect(try #require(unigram("montreal", one)) == -99, "a word the dictionary had keeps the main model's weight")
    }
}
