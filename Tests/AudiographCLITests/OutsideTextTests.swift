import Foundation
import Testing

/// Text from outside (file names, a graph's name and paths) printed by the CLI: a newline in a
/// path cannot split a line in two, an escape sequence cannot reach the terminal, and `dot`
/// stays Graphviz that parses whatever a path holds.
@Suite struct OutsideTextTests {
    static let hostile = "a\nb\u{1B}[2J\u{202E}.wav"
    static let shown = "a\\nb\\u{1B}[2J\\u{202E}.wav"

    @Test func anErrorNamingAPathWithControlCharactersIsOneVisibleLine() throws {
        let r = try CLI.run(["run", "Graphs/gain.json", "--source", Self.hostile])
        #expect(r.status == 1)
        #expect(r.stderrLines.count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("--source \(Self.shown): no such file"), "\(r.stderr)")
        #expect(!r.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" })
    }

    @Test func validateAndTheRunShowWhatTheGraphNamesOnOneLineEach() throws {
        let dir = CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        try WAVFixture.write(dir.appendingPathComponent("in.wav"), rate: 16000, channels: 1, bits: 16,
                             samples: WAVFixture.noise(count: 1600, bits: 16))
        let graph = dir.appendingPathComponent("g.json")
        try #"""
        {"graph": "name\nwith a newline", "nodes": [
          {"id": "src", "type": "file-source", "params": {"path": "in.wav"}},
          {"id": "out", "type": "wav-sink", "params": {"path": "a\nb\u001b[2J.wav"}}],
         "connections": [{"from": "src", "to": "out"}]}
        """#.write(to: graph, atomically: true, encoding: .utf8)
        let v = try CLI.run(["validate", graph.path])
        #expect(v.status == 0)
        #expect(v.stdoutLines.count == 3, "\(v.stdout)")
        #expect(v.stdoutLines.first?.hasSuffix("valid graph \"name\\nwith a newline\": 2 nodes, 1 connection") == true)
        let r = try CLI.run(["run", graph.path], directory: dir)  // where a sink's file goes
        #expect(r.status == 0)
        #expect(r.stderr.contains("wrote a\\nb\\u{1B}[2J.wav"), "\(r.stderr)")
        #expect(!r.stderr.unicodeScalars.contains("\u{1B}"))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("a\nb\u{1B}[2J.wav").path),
                "the file itself keeps its name")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dot"), "needs Graphviz's dot (Tools/install-deps)"))
    func dotOfAGraphWithQuotesBackslashesAndNewlinesParses() throws {
        let dir = CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let graph = dir.appendingPathComponent("g.json")
        try #"""
        {"graph": "say \"hi\"\n", "nodes": [
          {"id": "src", "type": "file-source", "params": {"path": "s\\\".wav\nx"}},
          {"id": "out", "type": "wav-sink", "params": {"path": "o\\.wav"}}],
         "connections": [{"from": "src", "to": "out"}]}
        """#.write(to: graph, atomically: true, encoding: .utf8)
        let d = try CLI.run(["dot", graph.path])
        #expect(d.status == 0)
        // The source is missing, so the formats are "decided at start": a comment line first.
        #expect(d.stdoutLines.first?.hasPrefix("// formats decided at start:") == true)
        #expect(d.stdout.contains(#"s\\\".wav\\nx\""#), "the path shown as written: \(d.stdout)")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/dot")
        p.arguments = ["-Tcanon"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        p.standardInput = input; p.standardOutput = output; p.standardError = errors
        try p.run()
        input.fileHandleForWriting.write(Data(d.stdout.utf8))
        try input.fileHandleForWriting.close()
        let canon = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "dot: \(complaint)")
        #expect(canon.contains("src") && canon.contains("out"))
    }

    @Test func batchListsAFileNamedWithANewlineOnOneLine() throws {
        let dir = CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputs = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        try WAVFixture.write(inputs.appendingPathComponent("a\nb\tc.wav"), rate: 16000, channels: 1, bits: 16,
                             samples: WAVFixture.noise(count: 1600, bits: 16))
        let r = try CLI.run(["batch", "Graphs/transcribe.json", inputs.path, "--output", dir.appendingPathComponent("out").path, "--list"])
        #expect(r.status == 0)
        #expect(r.stdoutLines.count == 1, "\(r.stdout)")
        #expect(r.stdoutLines.first?.split(separator: "\t").count == 2, "path, then where its results go")
        #expect(r.stdout.contains("a\\nb\\tc.wav"))
    }
}
