import AudioGraphTestSupport
import Foundation
import Testing

/// What a new user meets first (issue: "the first hour"): messages that name the argument at
/// fault, outputs where a user expects them, results alone on stdout.
@Suite struct FirstHourTests {
    /// A bad `--set` value or parameter is reported at the argument, not at the graph file.
    @Test func setErrorsNameTheArgument() throws {
        let bad = try CLI.run(["run", "graphs/transcribe.json", "--source", "/nonexistent.wav", "--set", "rs.rate=fast"])
        #expect(bad.status == 2 && bad.stderrLines == [
            "audiograph: --set rs.rate=fast: node \"rs\": parameter \"rate\": expected a whole number in 8000...384000 Hz, got \"fast\""],
            "\(bad.stderr)")
        let typo = try CLI.run(["run", "graphs/transcribe.json", "--source", "/nonexistent.wav", "--set", "rs.rat=8000"])
        #expect(typo.status == 2 && typo.stderrLines.count == 1 && typo.stderr.hasPrefix("audiograph: --set rs.rat=8000: ")
                && typo.stderr.contains("did you mean \"rate\"?"), "\(typo.stderr)")
    }

    /// A sound file given where `--source` was meant, and `run` alone, say what to type.
    @Test func runUsageSaysWhatToType() throws {
        let file = try CLI.run(["run", "transcribe", "talk.wav"])
        #expect(file.status == 2 && file.stderr.contains("--source talk.wav"), "\(file.stderr)")
        let alone = try CLI.run(["run"])
        #expect(alone.status == 2 && alone.stderrLines.count == 1 && alone.stderr.contains("run --list")
                && alone.stderr.contains("--source"), "\(alone.stderr)")
        let help = try CLI.run(["run", "--help"])
        #expect(help.stdout.contains("vad-probability") && !help.stdout.contains(" probability,"))
    }

    /// A bundled graph's name works as README says: from the repository root, and with an
    /// uninstalled build from any folder (its repository's `Graphs`); an unknown name is one
    /// error that says where it looked.
    @Test(.flite) func bundledGraphsAreFoundByName() throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let root = try CLI.run(["run", "transcribe", "--source", wav.path])
        #expect(root.status == 0 && root.stdoutLines.count == 1, "\(root.stderr)")
        let elsewhere = try CLI.run(["run", "transcribe", "--source", wav.path], directory: CLI.tempDir())
        #expect(elsewhere.status == 0 && elsewhere.stdout == root.stdout, "\(elsewhere.stderr)")
        // `run --list` names them, each description at the same column.
        let list = try CLI.run(["run", "--list"], directory: CLI.tempDir())
        let columns = Set(list.stdoutLines.map { line in
            let name = line.prefix { $0 != " " }
            return name.count + line.dropFirst(name.count).prefix { $0 == " " }.count
        })
        #expect(list.status == 0 && list.stdoutLines.contains { $0.hasPrefix("transcribe ") } && columns.count == 1, "\(list.stdout)")
        let missing = try CLI.run(["run", "no-such-graph"], directory: CLI.tempDir())
        #expect(missing.status == 2 && missing.stderrLines.count == 1
                && missing.stderr.hasPrefix("audiograph: no-such-graph: no such graph file")
                && missing.stderr.contains("/Graphs") && missing.stderr.contains("run --list"), "\(missing.stderr)")
    }

    /// An unknown node type is one error, not one more for the node it would have fed; a
    /// cycle is placed at the connection that closes it and names the loop.
    @Test func graphMistakesAreOneErrorEach() throws {
        let dir = CLI.tempDir()
        let typo = dir.appendingPathComponent("typo.json")
        try """
        {"nodes": [
          {"id": "src", "type": "test-signal"},
          {"id": "rs", "type": "resample", "params": {"rate": 8000}},
          {"id": "g", "type": "gain"},
          {"id": "out", "type": "null-sink"}
         ],
         "connections": [{"from": "src", "to": "rs"}, {"from": "rs", "to": "g"}, {"from": "g", "to": "out"}]}
        """.write(to: typo, atomically: true, encoding: .utf8)
        let t = try CLI.run(["validate", typo.path])
        #expect(t.status == 2 && t.stderrLines.count == 1 && t.stderr.contains("did you mean \"resampler\"?"), "\(t.stderr)")
        let cycle = dir.appendingPathComponent("cycle.json")
        try """
        {"nodes": [
          {"id": "src", "type": "test-signal"},
          {"id": "m", "type": "mixer"},
          {"id": "g", "type": "gain"},
          {"id": "out", "type": "null-sink"}
         ],
         "connections": [{"from": "src", "to": "m"}, {"from": "m", "to": "g"},
                         {"from": "g", "to": "m"}, {"from": "g", "to": "out"}]}
        """.write(to: cycle, atomically: true, encoding: .utf8)
        let c = try CLI.run(["validate", cycle.path])
        #expect(c.status == 2 && c.stderrLines.count == 1, "\(c.stderr)")
        #expect(c.stderr.contains("cycle.json:8:") && c.stderr.contains("\"m\" -> \"g\" -> \"m\"") && !c.stderr.contains("\"out\""),
                "\(c.stderr)")
    }

    /// A graph file's relative output lands in the working directory (not beside the graph),
    /// its inputs are still found beside the graph, and the end line says what was written.
    @Test func relativeOutputsLandInTheWorkingDirectory() throws {
        let graphs = CLI.tempDir(), work = CLI.tempDir()
        try WAVFixture.write(graphs.appendingPathComponent("in.wav"), rate: 16000, channels: 1, bits: 16,
                             samples: (0..<8000).map { Int32(3000 * sin(Double($0) / 8)) })
        let g = graphs.appendingPathComponent("copy.json")
        try """
        {"nodes": [{"id": "src", "type": "file-source", "params": {"path": "in.wav"}},
                   {"id": "out", "type": "wav-sink", "params": {"path": "copied.wav"}}],
         "connections": [{"from": "src", "to": "out"}]}
        """.write(to: g, atomically: true, encoding: .utf8)
        let r = try CLI.run(["run", g.path], directory: work)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: work.appendingPathComponent("copied.wav").path))
        #expect(!FileManager.default.fileExists(atPath: graphs.appendingPathComponent("copied.wav").path))
        #expect(r.stderr.contains("wrote copied.wav"), "\(r.stderr)")
    }

    /// Plain `run` piped to a file: the finals alone on stdout, the vad's and end of speech's
    /// lines on stderr.
    @Test(.flite) func onlyResultsOnStdout() throws {
        let wav = try #require(Flite.speech(["go forward ten meters", "find japanese restaurants nearby"], pause: 1.5))
        let r = try CLI.run(["run", "graphs/transcribe.json", "--source", wav.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines.count == 2 && r.stdoutLines.allSatisfy { $0.contains("(confidence ") }, "\(r.stdout)")
        #expect(r.stderr.contains("speech starts") && r.stderr.contains("utterance 1 ends"), "\(r.stderr)")
    }
}
