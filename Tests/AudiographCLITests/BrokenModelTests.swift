import AudioGraph
import AudioGraphSpeech
import AudioGraphTestSupport
import Foundation
import Testing

/// A damaged model never ends the process unexplained: one line naming the node, the
/// parameter and the file, exit 2, and with `--json` an `error` then an `end`.
@Suite(.enabled(if: SpeechModel.isDefaultInstalled && Flite.isAvailable, "needs pocketsphinx-en-us and flite"))
struct BrokenModelTests {
    /// A copy of the installed acoustic model (links) with `file` replaced or removed.
    static func model(_ file: String, _ contents: String?) throws -> String {
        let dir = CLI.tempDir()
        for name in try FileManager.default.contentsOfDirectory(atPath: SpeechModel.defaultHMM) where name != file {
            try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent(name).path,
                                                       withDestinationPath: SpeechModel.defaultHMM + "/" + name)
        }
        if let contents { try Data(contents.utf8).write(to: dir.appendingPathComponent(file)) }
        return dir.path
    }

    static func dictionary(_ text: String) throws -> String {
        let url = CLI.tempDir().appendingPathComponent("words.dict")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    static let junk = String(repeating: "\u{1}garbage\u{7F}", count: 100)

    /// The cases: `--set` value, parameter and file named, words in the message.
    static func cases() throws -> [(set: String, parameter: String, file: String, words: String)] {
        var all: [(String, String, String, String)] = []
        for (file, contents, words) in [("means", junk, "no \"s3\" header"), ("mdef", junk, "neither a binary"),
                                        ("variances", junk, "no \"s3\" header"), ("sendump", nil, "no mixture_weights"),
                                        ("means", nil, "no such file"), ("variances", nil, "no such file"),
                                        ("transition_matrices", nil, "no such file")] {
            let dir = try model(file, contents)
            all.append(("asr.hmm=\(dir)", "hmm", dir + "/" + file, words))
        }
        let two = "hello HH AH L OW\nworld W ER L D\n"
        for (text, words) in [(two + "bad QQ XX\n", "line 3: \"bad\": phone \"QQ\""), (two + junk + "\n", "line 3:"),
                              ("", "holds no words")] {
            let path = try dictionary(text)
            all.append(("asr.dict=\(path)", "dict", path, words))
        }
        return all
    }

    @Test(.flite) func eachCaseIsOneLineNamingTheFile() throws {
        let wav = try #require(Flite.speech("find japanese restaurants nearby"))
        for c in try Self.cases() {
            let r = try CLI.run(["run", "Graphs/transcribe.json", "--source", wav.path, "--set", c.set])
            #expect(r.status == 2, "\(c.set): \(r.stderr)")
            #expect(r.stderrLines.count == 1, "\(c.set): \(r.stderr)")
            let line = r.stderrLines.first ?? ""
            #expect(line.contains("node \"asr\": parameter \"\(c.parameter)\": \(c.file): ") && line.contains(c.words), "\(line)")

            let j = try CLI.run(["run", "Graphs/transcribe.json", "--source", wav.path, "--set", c.set, "--json"])
            #expect(j.status == 2)
            let events = j.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(events.map { $0["type"] as? String } == ["error", "end"], "\(j.stdout)")
            #expect(events.first?["parameter"] as? String == c.parameter && events.first?["file"] as? String == c.file)
        }
    }

    /// A dictionary for another language model: recognised, with one warning saying how
    /// many of the model's words cannot be said.
    @Test(.flite) func aDictionaryMissingMostWordsIsAWarning() throws {
        let wav = try #require(Flite.speech("find japanese restaurants nearby"))
        let dict = try Self.dictionary("hello HH AH L OW\nworld W ER L D\n")
        let r = try CLI.run(["run", "Graphs/transcribe.json", "--source", wav.path, "--set", "asr.dict=\(dict)", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = r.stdoutLines.filter { $0.contains("\"type\":\"warning\"") }
        #expect(warnings.count == 1 && warnings[0].contains("72543 of the 72545 words of the language model"), "\(r.stdout)")
    }

    /// An embedding app's session over a broken model throws; this process lives on.
    @Test(.flite) func aSessionOverABrokenModelThrows() throws {
        let wav = try #require(Flite.speech("find japanese restaurants nearby"))
        let dir = try Self.model("means", Self.junk)
        var g = GraphDescription(name: "broken")
        g.addNode("src", type: "file-source", ["path": .string(wav.path)])
        g.addNode("asr", type: "recognizer", ["hmm": .string(dir)])
        g.connect("src", to: "asr")
        let error = #expect(throws: EngineError.self) { _ = try RecognitionSession(graph: g) }
        #expect(error?.parameter == "hmm" && error?.file == dir + "/means" && error?.node == "asr", "\(String(describing: error))")
    }

    /// A language model PocketSphinx cannot read fails after `listening` (it loads while the
    /// run starts): still one line naming node, parameter and file, exit 2, no input advice;
    /// with `--json` the error and the end follow `listening`. An embedder's session ends with
    /// the error event.
    @Test(.flite) func aLanguageModelThatFailsToLoadIsOneLineAndExit2() async throws {
        let wav = try #require(Flite.speech("find japanese restaurants nearby"))
        let lm = CLI.tempDir().appendingPathComponent("broken.lm.bin")
        try Data(Self.junk.utf8).write(to: lm)
        let r = try CLI.run(["run", "graphs/dictation.json", "--source", wav.path, "--set", "asr.lm=\(lm.path)"])
        // The vad's and end of speech's lines go to stderr too: one `audiograph:` line among them.
        #expect(r.status == 2 && r.stderrLines.filter { $0.hasPrefix("audiograph: ") }.count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("node \"asr\": parameter \"lm\": ") && r.stderr.contains(lm.path), "\(r.stderr)")
        let j = try CLI.run(["run", "graphs/dictation.json", "--source", wav.path, "--set", "asr.lm=\(lm.path)", "--json"])
        #expect(j.status == 2)
        let events = j.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let types = events.map { $0["type"] as? String ?? "" }
        #expect(types.first == "state" && types.suffix(3) == ["error", "state", "end"] && !types.contains("final"), "\(j.stdout)")
        #expect(events.last?["reason"] as? String == "error" && events.last?["suggestion"] == nil)

        var g = GraphDescription(name: "broken")
        g.addNode("src", type: "file-source", ["path": .string(wav.path)])
        g.addNode("asr", type: "recognizer", ["lm": .string(lm.path)])
        g.connect("src", to: "asr")
        let session = try RecognitionSession(graph: g)
        let stream = session.events
        try session.start()
        var errors: [EngineError] = []
        var end: EndReason?
        for await e in stream {
            if case .error(let err) = e { errors.append(err) }
            if case .end(let reason, _) = e { end = reason }
        }
        #expect(errors.count == 1 && errors.first?.code == .model && errors.first?.parameter == "lm", "\(errors)")
        #expect(end == .error)
    }
}
