@testable import AudioGraphSpeech
import Foundation
import Testing

/// The dictionary cut to a language model's words: what it keeps, what it records, when it
/// is made again.
@Suite struct LanguageModelDictionaryTests {
    func temporary() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ag-lmdict-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func keepsTheModelsWordsWithTheirVariantsAndRecordsTheCoverage() throws {
        let dir = try temporary()
        let dict = dir.appendingPathComponent("words.dict"), lm = dir.appendingPathComponent("model.lm")
        try Data("hello HH AH L OW\nhello(2) HH EH L OW\nworld W ER L D\nramen R AA M AH N\n\ngo G OW\n".utf8).write(to: dict)
        try Data("lm".utf8).write(to: lm)
        let cache = dir.appendingPathComponent("cache").path
        #expect(LanguageModelDictionary.cached(dict: dict.path, lm: lm.path, in: cache) == nil)
        let coverage = LanguageModelDictionary.Coverage(missing: 1, total: 4, examples: ["boba"])
        LanguageModelDictionary.store(dict: dict.path, lm: lm.path, words: ["hello", "go", "boba", "moon"], coverage: coverage, in: cache)
        let cut = try #require(LanguageModelDictionary.cached(dict: dict.path, lm: lm.path, in: cache))
        #expect(cut.coverage == coverage)
        let lines = try String(contentsOfFile: cut.path, encoding: .utf8).split(separator: "\n")
        #expect(Array(lines.dropFirst()) == ["hello HH AH L OW", "hello(2) HH EH L OW", "go G OW", ";; audiograph end"])
        // A cut without its last line is not taken.
        let whole = try Data(contentsOf: URL(fileURLWithPath: cut.path))
        try whole.dropLast(5).write(to: URL(fileURLWithPath: cut.path))
        #expect(LanguageModelDictionary.cached(dict: dict.path, lm: lm.path, in: cache) == nil)
        try whole.write(to: URL(fileURLWithPath: cut.path))
        // PocketSphinx and the dictionary check skip the record line (";;").
        #expect(try PronunciationDictionary.check(cut.path, phones: ["HH", "AH", "EH", "L", "OW", "G"]) == 3)
        // An edited dictionary is cut again.
        try Data("hello HH AH L OW\n".utf8).write(to: dict)
        #expect(LanguageModelDictionary.cached(dict: dict.path, lm: lm.path, in: cache) == nil)
        // A folder that cannot be written: no cut, no error.
        LanguageModelDictionary.store(dict: dict.path, lm: lm.path, words: ["hello"], coverage: coverage, in: "/proc/no/such")
        #expect(LanguageModelDictionary.cached(dict: dict.path, lm: lm.path, in: "/proc/no/such") == nil)
    }
}
