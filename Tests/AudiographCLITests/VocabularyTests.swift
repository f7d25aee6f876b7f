import AudioGraphTestSupport
import Foundation
import Testing

/// Words the model's dictionary lacks, recognised through a vocabulary file (real decoder,
/// real model, flite speech), and every kind of bad line named with its file and line.
@Suite struct VocabularyTests {
    func finals(_ r: CLI.Result) -> [String] {
        r.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["type"] as? String == "final" }.compactMap { $0["text"] as? String }
    }

    func file(_ name: String, _ text: String) throws -> URL {
        let url = CLI.tempDir().appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test(.flite) func wordsOutsideTheDictionaryAreHeardWithAVocabulary() throws {
        let wav = try #require(Flite.speech("find shawarma restaurants nearby"))
        let without = try CLI.run(["run", "graphs/dictation.json", "--source", wav.path, "--json"])
        #expect(!finals(without).joined(separator: " ").contains("shawarma"), "the model alone cannot spell it")
        // One word given its pronunciation, the others from flite's lexicon.
        let vocabulary = try file("vocabulary.txt", "# cuisines\nshawarma\nramen\tR AA M AH N\nfind shawarma restaurants\n")
        let with = try CLI.run(["run", "graphs/dictation.json", "--source", wav.path, "--json", "--set", "asr.vocabulary=\(vocabulary.path)"])
        #expect(with.status == 0, "\(with.stderr)")
        #expect(finals(with) == ["find shawarma restaurants nearby"])
    }

    @Test(.flite) func aGrammarMayUseVocabularyWords() throws {
        let wav = try #require(Flite.speech("find shawarma restaurants nearby"))
        let grammar = try file("food.gram", "#JSGF V1.0;\ngrammar food;\npublic <order> = find <cuisine> restaurants nearby;\n<cuisine> = ramen | shawarma | sushi;\n")
        let without = try CLI.run(["run", "graphs/command.json", "--source", wav.path, "--set", "asr.grammar=\(grammar.path)"])
        #expect(without.status != 0 && without.stderr.contains("shawarma") && without.stderr.contains("vocabulary"),
                "names the word and where to add it: \(without.stderr)")
        let vocabulary = try file("cuisines.txt", "ramen\nshawarma\n")
        let with = try CLI.run(["run", "graphs/command.json", "--source", wav.path, "--json",
                                "--set", "asr.grammar=\(grammar.path)", "--set", "asr.vocabulary=\(vocabulary.path)"])
        #expect(finals(with) == ["find shawarma restaurants nearby"], "\(with.stderr)")
    }

    /// Names spelled with accents (an assistant's contacts): heard, and the transcript spells
    /// them as the vocabulary does, through a grammar and a language model alike (the JSON
    /// output is UTF-8). Before, the file was refused ("words are letters a-z").
    @Test(.flite) func accentedNamesAreHeardAndSpelledAsGiven() throws {
        let wav = try #require(Flite.speech("call zoey please"))
        let vocabulary = try file("contacts.txt", "Zoë\nRenée\nJosé\ncall zoë please\n")
        let dictation = try CLI.run(["run", "graphs/dictation.json", "--source", wav.path, "--json", "--set", "asr.vocabulary=\(vocabulary.path)"])
        #expect(finals(dictation) == ["call zoë please"], "\(dictation.stderr)")
        let grammar = try file("calls.gram", "#JSGF V1.0;\ngrammar calls;\npublic <call> = call (zoë | renée | josé) [please];\n")
        let command = try CLI.run(["run", "graphs/command.json", "--source", wav.path, "--json",
                                   "--set", "asr.grammar=\(grammar.path)", "--set", "asr.vocabulary=\(vocabulary.path)"])
        #expect(finals(command) == ["call zoë please"], "\(command.stderr)")
    }

    /// A word without a vowel letter is spelled letter by letter, as flite says it: flite's
    /// letter-to-sound rules gave "xkcd" as "z k d" (heard as "at eight eating out") and
    /// nothing at all for "djh", which was then left out and the grammar naming it refused.
    @Test(.flite) func wordsWithoutVowelsAreSpelled() throws {
        let wav = try #require(Flite.speech("please open xkcd now"))
        let vocabulary = try file("sites.txt", "xkcd\ndjh\n")
        let dictation = try CLI.run(["run", "graphs/dictation.json", "--source", wav.path, "--json", "--set", "asr.vocabulary=\(vocabulary.path)"])
        #expect(finals(dictation).joined(separator: " ").contains("open xkcd"), "\(finals(dictation)) \(dictation.stderr)")
        let grammar = try file("sites.gram", "#JSGF V1.0;\ngrammar sites;\npublic <open> = please open (xkcd | djh) now;\n")
        let command = try CLI.run(["run", "graphs/command.json", "--source", wav.path, "--json",
                                   "--set", "asr.grammar=\(grammar.path)", "--set", "asr.vocabulary=\(vocabulary.path)"])
        #expect(finals(command) == ["please open xkcd now"], "\(command.stderr)")
    }

    @Test(.flite, arguments: [("ramen\tR AA M EN\n", ["line 1", "phones the model lacks: EN"]),
                              ("good\nbad word!\n", ["line 2", "\"word!\""]),
                              ("two words\tT UW\n", ["line 1", "one word, not a phrase"]),
                              ("ramen\t  \n", ["line 1", "no pronunciation"])])
    func badLinesNameTheFileAndLine(text: String, words: [String]) throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let vocabulary = try file("bad.txt", text)
        let r = try CLI.run(["run", "graphs/dictation.json", "--source", wav.path, "--set", "asr.vocabulary=\(vocabulary.path)"])
        #expect(r.status == 2, "exit \(r.status)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(r.stderr)")
        for w in words + [vocabulary.path, "vocabulary"] { #expect(r.stderr.contains(w), "\(w) in: \(r.stderr)") }
    }

    @Test func aMissingVocabularyFileIsOneLine() throws {
        let r = try CLI.run(["validate", "graphs/dictation.json", "--set", "asr.vocabulary=/nonexistent/words.txt"])
        #expect(r.status == 2 && r.stderr.contains("/nonexistent/words.txt") && r.stderr.contains("vocabulary"), "\(r.stderr)")
    }

    /// A device or a pipe where a file is read: as a grammar, PocketSphinx's parser read
    /// /dev/zero for ever and waited on a pipe for a writer; as a vocabulary they were "cannot
    /// read". Each is one line naming what is there.
    @Test func devicesAndPipesAreNoFiles() throws {
        let fifo = CLI.tempDir().appendingPathComponent("grammar.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for (set, says) in [("asr.vocabulary=/dev/zero", "/dev/zero: is a character device, not a file"),
                            ("asr.grammar=\(fifo)", "\(fifo): is a pipe, not a file"),
                            ("asr.dict=/dev/null", "/dev/null: is a character device, not a file")] {
            let r = try CLI.run(["validate", "graphs/command.json", "--set", set])
            #expect(r.status == 2 && r.stderr.contains(says) && r.stderr.split(separator: "\n").count == 1, "\(set): \(r.stderr)")
        }
    }
}
