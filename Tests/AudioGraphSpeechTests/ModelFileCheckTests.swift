import AudioGraphCore
@testable import AudioGraphSpeech
import Foundation
import Testing

/// Damaged model files, made at test time from the installed en-us model: each is found
/// before PocketSphinx reads it (which would end the process), with a message naming it.
@Suite(.enabled(if: SpeechModel.isDefaultInstalled, "Debian's pocketsphinx-en-us is not installed"))
struct ModelFileCheckTests {
    /// A copy of the installed acoustic model (links to its files) with `file` replaced by
    /// `contents`, or removed when `contents` is nil.
    static func model(replacing file: String, with contents: [UInt8]?) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: SpeechModel.defaultHMM) where name != file {
            try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent(name).path,
                                                       withDestinationPath: SpeechModel.defaultHMM + "/" + name)
        }
        if let contents { try Data(contents).write(to: dir.appendingPathComponent(file)) }
        return dir.path
    }

    /// 1000 bytes of deterministic noise, as a failed download leaves.
    static let garbage: [UInt8] = {
        var x: UInt32 = 7
        return (0..<1000).map { _ in
            x = x &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: x >> 24)
        }
    }()

    static func truncated(_ name: String, to fraction: Double) throws -> [UInt8] {
        let whole = try Data(contentsOf: URL(fileURLWithPath: SpeechModel.defaultHMM + "/" + name))
        return Array(whole.prefix(Int(Double(whole.count) * fraction)))
    }

    @Test func theInstalledModelPasses() throws {
        let model = try AcousticModelCheck.check(SpeechModel.defaultHMM)
        #expect(model.phones.contains("AA") && model.phones.contains("SIL") && model.phones.count == 42)
        #expect(try PronunciationDictionary.check(SpeechModel.defaultDict, phones: model.phones) > 100_000)
    }

    /// File, replacement (nil: removed), words the message must hold.
    static let cases: [(String, [UInt8]?, String)] = [
        ("means", garbage, "no \"s3\" header"),
        ("variances", garbage, "no \"s3\" header"),
        ("mdef", garbage, "neither a binary model definition"),
        ("transition_matrices", garbage, "no \"s3\" header"),
        ("sendump", nil, "missing, and no mixture_weights"),
        ("means", nil, "no such file"),
        ("variances", nil, "no such file"),
        ("transition_matrices", nil, "no such file"),
        ("mdef", nil, "no such file"),
        ("feat.params", Array("-feat 1s_c_d_dd\n-svspec 0-12/13-25\n".utf8), "-svspec gives streams of 13/13"),
        ("noisedict", Array("<s> SIL\n[NOISE] +XYZ+\n".utf8), "line 2: \"[NOISE]\": phone \"+XYZ+\""),
    ]

    @Test(arguments: cases.indices)
    func aDamagedFileIsNamed(_ i: Int) throws {
        let (file, contents, words) = Self.cases[i]
        let dir = try Self.model(replacing: file, with: contents)
        let problem = #expect(throws: ModelFileProblem.self) { try AcousticModelCheck.check(dir) }
        #expect(problem?.file == dir + "/" + file)
        #expect(problem?.message.contains(words) == true, "\(String(describing: problem?.message))")
    }

    /// A pipe or a device where a model file goes is named for what it is (a pipe said "you
    /// don't have permission": Foundation's words for a map that failed).
    @Test(arguments: ["means", "noisedict", "feat.params"])
    func aPipeOrDeviceIsNamedForWhatItIs(_ file: String) throws {
        let piped = try Self.model(replacing: file, with: nil)
        #expect(mkfifo(piped + "/" + file, 0o600) == 0)
        let problem = #expect(throws: ModelFileProblem.self) { try AcousticModelCheck.check(piped) }
        #expect(problem?.file == piped + "/" + file && problem?.message == "is a pipe, not a file", "\(String(describing: problem))")
        let device = try Self.model(replacing: file, with: nil)
        try FileManager.default.createSymbolicLink(atPath: device + "/" + file, withDestinationPath: "/dev/zero")
        let zero = #expect(throws: ModelFileProblem.self) { try AcousticModelCheck.check(device) }
        #expect(zero?.message == "is a character device, not a file", "\(String(describing: zero))")
    }

    /// Cut files: every reader stops at the end instead of reading past it.
    @Test(arguments: ["means", "variances", "mdef", "transition_matrices", "sendump"])
    func aTruncatedFileIsNamed(_ file: String) throws {
        for fraction in [0.001, 0.3, 0.999] {
            let dir = try Self.model(replacing: file, with: try Self.truncated(file, to: fraction))
            let problem = #expect(throws: ModelFileProblem.self) { try AcousticModelCheck.check(dir) }
            #expect(problem?.file == dir + "/" + file, "\(file) cut to \(fraction)")
        }
    }

    /// One flipped byte inside the values is caught by the checksum.
    @Test func aFlippedByteFailsTheChecksum() throws {
        var bytes = try Self.truncated("means", to: 1)
        bytes[bytes.count / 2] ^= 0x01
        let dir = try Self.model(replacing: "means", with: bytes)
        let problem = #expect(throws: ModelFileProblem.self) { try AcousticModelCheck.check(dir) }
        #expect(problem?.message.contains("checksum mismatch") == true)
    }

    /// Dictionary lines PocketSphinx would drop without a word are errors naming the line.
    @Test func dictionaryProblemsNameTheLine() throws {
        let phones = try AcousticModelCheck.check(SpeechModel.defaultHMM).phones
        let dir = FileManager.default.temporaryDirectory
        func check(_ text: [UInt8]) throws(ModelFileProblem) -> Int {
            let url = dir.appendingPathComponent("dict-\(UUID().uuidString)")
            try? Data(text).write(to: url)
            return try PronunciationDictionary.check(url.path, phones: phones)
        }
        let two = Array("hello HH AH L OW\nworld W ER L D\n".utf8)
        #expect(try check(two) == 2)
        #expect(try check(Array("## comment\n\nhello HH AH L OW\n;; another\n".utf8)) == 1)
        var problem = #expect(throws: ModelFileProblem.self) { try check(two + Array("bad QQ XX\n".utf8)) }
        #expect(problem?.message.hasPrefix("line 3: \"bad\": phone \"QQ\" is not in the acoustic model") == true)
        problem = #expect(throws: ModelFileProblem.self) { try check(two + [0xC3, 0x28, 0x20, 0x41, 0x41, 0x0A]) }
        #expect(problem?.message.hasPrefix("line 3: the word is not valid UTF-8") == true, "\(String(describing: problem))")
        problem = #expect(throws: ModelFileProblem.self) { try check(two + Self.garbage) }
        #expect(problem?.message.hasPrefix("line 3:") == true, "\(String(describing: problem))")
        problem = #expect(throws: ModelFileProblem.self) { try check([]) }
        #expect(problem?.message == "holds no words")
        problem = #expect(throws: ModelFileProblem.self) { try check(two + Array("lonely\n".utf8)) }
        #expect(problem?.message == "line 3: \"lonely\" has no pronunciation (expected a word, then its phones)")
    }

    /// Past the checks, a fatal error inside PocketSphinx's loader returns to the caller
    /// instead of ending the process (this test process lives on to see it).
    @Test func aFatalErrorWhileLoadingReturns() throws {
        let dir = try Self.model(replacing: "means", with: Self.garbage)
        let error = #expect(throws: EngineError.self) {
            _ = try PocketSphinxDecoder(hmm: dir, dict: SpeechModel.defaultDict, search: .languageModel(SpeechModel.defaultLM),
                                        limits: .init(hmms: 4000, wordExits: 10), dropsSilence: false)
        }
        #expect(error?.message.contains("end_comment") == true, "\(String(describing: error))")
        // The thread can load a good model afterwards.
        _ = try PocketSphinxDecoder(hmm: SpeechModel.defaultHMM, dict: SpeechModel.defaultDict,
                                    search: .grammar(Self.grammar()), limits: .init(hmms: 4000, wordExits: 10), dropsSilence: false)
    }

    /// The n-gram model is read beside the acoustic model: its failure is named `lm` even
    /// where its path begins with the acoustic model's (Debian's own layout: en-us and
    /// en-us.lm.bin), and when both fail the acoustic model's error is the one reported.
    @Test func aLanguageModelFailureNamesTheLanguageModel() throws {
        let hmm = try Self.model(replacing: "none", with: nil)
        let lm = hmm + ".lm.bin"
        try Data(Self.garbage).write(to: URL(fileURLWithPath: lm))
        func load(_ hmm: String) -> EngineError? {
            #expect(throws: EngineError.self) {
                _ = try PocketSphinxDecoder(hmm: hmm, dict: SpeechModel.defaultDict, search: .languageModel(lm),
                                            limits: .init(hmms: 4000, wordExits: 10), dropsSilence: false)
            }
        }
        let lmOnly = load(hmm)
        #expect(lmOnly?.parameter == "lm" && lmOnly?.message.contains(lm) == true, "\(String(describing: lmOnly))")
        let both = load(try Self.model(replacing: "means", with: Self.garbage))
        #expect(both?.parameter != "lm" && both?.message.contains("end_comment") == true, "\(String(describing: both))")
    }

    /// A language model whose words the dictionary mostly cannot say is counted.
    @Test func languageModelWordsWithoutPronunciationAreCounted() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("two-\(UUID().uuidString).dict")
        try Data("hello HH AH L OW\nworld W ER L D\n".utf8).write(to: url)
        let d = try PocketSphinxDecoder(hmm: SpeechModel.defaultHMM, dict: url.path, search: .languageModel(SpeechModel.defaultLM),
                                        limits: .init(hmms: 4000, wordExits: 10), dropsSilence: false)
        let (all, words) = d.languageModelWords()
        #expect(words.total > 70000 && words.missing == words.total - 2, "\(words)")
        #expect(words.examples.count == 5 && all.count == words.total && all.contains("hello"))
    }

    static func grammar() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("yes-\(UUID().uuidString).gram")
        try Data("#JSGF V1.0;\ngrammar g;\npublic <a> = yes | no;\n".utf8).write(to: url)
        return url.path
    }
}
