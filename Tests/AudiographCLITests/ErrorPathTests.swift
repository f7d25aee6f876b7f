import Foundation
import Testing

/// Every bad input gives one clear line on stderr, the documented exit status, and no crash.
@Suite struct ErrorPathTests {
    static let corpusBad = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/bad")

    /// File name, expected exit status, words in the message.
    static let badFiles: [(String, Int32, String)] = [
        ("bits-7.wav", 1, "unsupported sample size: 7 bits"),
        ("block-align-lies.wav", 1, "block align 3 does not match"),
        ("channels-300.wav", 1, "unsupported channel count 300"),
        ("data-size-huge.wav", 0, "data chunk claims"),
        ("header-only-truncated.wav", 1, "fmt chunk claims"),
        ("huge-fmt-size.wav", 1, "fmt chunk claims 2147483647 bytes"),
        ("mulaw-codec.wav", 0, ""),
        ("no-fmt-chunk.wav", 1, "no fmt chunk"),
        ("not-riff.wav", 1, "not a WAV file"),
        ("odd-data-bytes.wav", 0, "partial frame"),
        ("zero-channels.wav", 1, "0 channels"),
        ("zero-rate.wav", 1, "sample rate 0"),
    ]

    @Test(.sharedCorpus, arguments: badFiles.map(\.0))
    func corpusBadFile(name: String) throws {
        let file = Self.corpusBad.appendingPathComponent(name)
        try #require(FileManager.default.fileExists(atPath: file.path), "the shared corpus has \(name)")
        let (_, status, words) = Self.badFiles.first { $0.0 == name }!
        let out = CLI.tempDir().appendingPathComponent("o.wav").path
        let r = try CLI.run(["run", "Graphs/gain.json", "--source", file.path, "--set", "out.path=\(out)"])
        #expect(r.status == status, "\(r.stderr)")
        // The meter's lines go to stderr too (stdout holds results only): count the complaints.
        let complaint = r.stderrLines.filter { $0.hasPrefix("audiograph: ") && !$0.hasPrefix("audiograph: ended") }
        #expect(complaint.count <= 1, "one line: \(r.stderr)")
        if !words.isEmpty {
            #expect(r.stderr.contains(words) && r.stderr.contains(name), "\(r.stderr)")
        }
        if status == 1 { #expect(r.stderr.contains("node \"src\"") && r.stderr.contains("parameter \"path\"")) }
    }

    @Test func madeUpBrokenFiles() throws {
        let dir = CLI.tempDir()
        var cases: [(String, [UInt8], String)] = [
            ("empty.wav", [], "empty"),
            ("short.wav", Array("RIFF".utf8), "not a WAV file"),
        ]
        // A valid file cut just before its data chunk.
        let whole = dir.appendingPathComponent("whole.wav")
        try WAVFixture.write(whole, rate: 16000, channels: 1, bits: 16, samples: [1, 2, 3])
        cases.append(("no-data.wav", Array(try Data(contentsOf: whole).prefix(36)), "no data chunk"))
        cases.append(("fmt-only-8.wav", Array(try Data(contentsOf: whole).prefix(28)), "fmt chunk claims 16 bytes but only 8 remain"))
        for (name, bytes, words) in cases {
            let f = dir.appendingPathComponent(name)
            try Data(bytes).write(to: f)
            let r = try CLI.run(["run", "Graphs/gain.json", "--source", f.path, "--set", "out.path=\(dir.path)/o.wav"])
            #expect(r.status == 1, "\(name): \(r.stderr)")
            #expect(r.stderrLines.count == 1 && r.stderr.contains(words), "\(name): \(r.stderr)")
        }
        let missing = try CLI.run(["run", "Graphs/gain.json", "--source", "/nonexistent.wav"])
        #expect(missing.status == 1 && missing.stderr == "audiograph: --source /nonexistent.wav: no such file\n", "\(missing.stderr)")
        // NODE=FILE naming a node the graph does not have, the file there: the node is what is wrong.
        let wrongNode = try CLI.run(["run", "Graphs/gain.json", "--source", "input=\(whole.path)"])
        #expect(wrongNode.status == 2 && wrongNode.stderrLines.count == 1
                && wrongNode.stderr.hasPrefix("audiograph: --source input=\(whole.path): the graph has no node \"input\" (its inputs: src)"),
                "\(wrongNode.stderr)")
        // The same for a sink: refused, not a file called "spk=o.wav" written in silence;
        // a file with "=" in its name is written when named with its folder.
        let wrongSink = try CLI.run(["run", "Graphs/assistant.json", "--source", whole.path, "--sink", "spk=\(dir.path)/o.wav"])
        #expect(wrongSink.status == 2 && wrongSink.stderrLines.count == 1 && wrongSink.stderr.contains("no node \"spk\" (its playback nodes: speaker)")
                && wrongSink.stderr.contains("./spk="), "\(wrongSink.stderr)")
        let equalsInName = try CLI.run(["run", "Graphs/gain.json", "--source", whole.path, "--set", "out.path=\(dir.path)/take=2.wav"])
        #expect(equalsInName.status == 0 && FileManager.default.fileExists(atPath: dir.path + "/take=2.wav"), "\(equalsInName.stderr)")
        // A folder is not a sound file: said so, with where to go instead.
        let folder = try CLI.run(["run", "Graphs/gain.json", "--source", dir.path])
        #expect(folder.status == 1 && folder.stderrLines.count == 1 && folder.stderr.contains("is a directory")
                && folder.stderr.contains("audiograph batch"), "\(folder.stderr)")
        // A pipe or device is refused, not waited on (a pipe's open waited for a writer for
        // ever; read, one gave no audio and exit 0).
        let pipe = dir.appendingPathComponent("pipe.wav")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        // A link that leads back to itself: stat's own words, not "no such file".
        let loop = dir.appendingPathComponent("loop.wav")
        try FileManager.default.createSymbolicLink(atPath: loop.path, withDestinationPath: loop.path)
        // A unix socket (a server's, say) is no sound file either.
        let socketPath = dir.appendingPathComponent("server.sock").path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in socketPath.utf8.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0)
        for (source, kind) in [(pipe.path, "is a pipe"), ("/dev/zero", "is a character device"), (socketPath, "is a socket"),
                               (loop.path, "cannot open: Too many levels of symbolic links")] {
            let r = try CLI.run(["run", "Graphs/gain.json", "--source", source, "--set", "out.path=\(dir.path)/o.wav"])
            #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains(kind) && r.stderr.contains(source), "\(r.stderr)")
        }
        // A pipe as the WAV sink is refused too (its open waited for a reader for ever);
        // /dev/null still takes a run's output.
        let sinkPipe = try CLI.run(["run", "Graphs/gain.json", "--source", whole.path, "--set", "out.path=\(pipe.path)"])
        #expect(sinkPipe.status != 0 && sinkPipe.stderrLines.count == 1 && sinkPipe.stderr.contains("is a pipe"), "\(sinkPipe.stderr)")
        let toNull = try CLI.run(["run", "Graphs/gain.json", "--source", whole.path, "--set", "out.path=/dev/null"])
        #expect(toNull.status == 0, "\(toNull.stderr)")
        // The file the run reads as its sink, by its name or a link to it: refused, and the
        // recording kept (it was cut to its header, and the mapped reader died of SIGBUS).
        let link = dir.appendingPathComponent("whole-link.wav")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: whole.path)
        let kept = try Data(contentsOf: whole)
        for sink in [whole.path, link.path] {
            let r = try CLI.run(["run", "Graphs/gain.json", "--source", whole.path, "--set", "out.path=\(sink)"])
            #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains("is a file this run reads"), "\(r.stderr)")
        }
        #expect(try Data(contentsOf: whole) == kept)
        // In a batch folder: the pipe is one failed input, a folder named like a sound file is
        // searched, and the rest are transcribed.
        let batchIn = dir.appendingPathComponent("batch-in"), batchOut = dir.appendingPathComponent("batch-out")
        try FileManager.default.createDirectory(at: batchIn.appendingPathComponent("folder.wav"), withIntermediateDirectories: true)
        try WAVFixture.write(batchIn.appendingPathComponent("a.wav"), rate: 16000, channels: 1, bits: 16, samples: [Int32](repeating: 0, count: 8000))
        try WAVFixture.write(batchIn.appendingPathComponent("folder.wav/b.wav"), rate: 16000, channels: 1, bits: 16, samples: [Int32](repeating: 0, count: 8000))
        #expect(mkfifo(batchIn.appendingPathComponent("pipe.wav").path, 0o600) == 0)
        let batch = try CLI.run(["batch", "Graphs/gain.json", batchIn.path, "--output", batchOut.path, "--set", "out.path=/dev/null"])
        #expect(batch.status == 1 && batch.stderr.contains("3 inputs: 2 transcribed, 1 failed") && batch.stderr.contains("pipe.wav: is a pipe"),
                "\(batch.stderr)")
        // An MP3 named .wav is read by its content (libsndfile), not refused by the WAV reader.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/lame") {
            let wav = dir.appendingPathComponent("tone.wav"), mp3 = dir.appendingPathComponent("tone.mp3")
            try WAVFixture.write(wav, rate: 16000, channels: 1, bits: 16, samples: (0..<16000).map { Int32(8000 * sin(Double($0) / 10)) })
            let lame = Process()
            lame.executableURL = URL(fileURLWithPath: "/usr/bin/lame")
            lame.arguments = ["--quiet", wav.path, mp3.path]
            try lame.run()
            lame.waitUntilExit()
            let renamed = dir.appendingPathComponent("really-mp3.wav")
            try FileManager.default.copyItem(at: mp3, to: renamed)
            let r = try CLI.run(["run", "Graphs/gain.json", "--source", renamed.path, "--set", "out.path=\(dir.path)/o.wav"])
            #expect(r.status == 0, "\(r.stderr)")
        }
    }

    /// Broken graph text, the words its one error line must carry.
    static let badGraphs: [(String, String)] = [
        ("{", "1:2: invalid JSON: expected a \"key\""),
        (#"{"nodes": [{"id": "s", "type": "test-signal"}, {"id": "a", "type": "gain", "params": {"db": "loud"}}, {"id": "o", "type": "null-sink"}], "connections": [{"from": "s", "to": "a"}, {"from": "a", "to": "o"}]}"#, "node \"a\": parameter \"db\": expected a number in -120...60 dB, got \"loud\""),
        (#"{"nodes": [{"id": "s", "type": "test-signal"}, {"id": "o", "type": "null-sink"}], "connections": [{"from": "s", "to": "o"}, {"from": "s", "to": "x"}]}"#,
         "connection to unknown node \"x\""),
        (#"{"nodes": [{"id": "s", "type": "test-signal", "params": {"rate": 44100.5}}, {"id": "o", "type": "null-sink"}], "connections": [{"from": "s", "to": "o"}]}"#,
         "parameter \"rate\": expected a whole number"),
        (#"{"nodes": [{"id": "s", "type": "test-signal"}, {"id": "o", "type": "null-sink"}], "connections": [{"from": "s", "to": "o", "colour": 1}]}"#,
         "unknown key \"colour\""),
        (#"{"nodes": [{"id": "a", "type": "test-signal", "params": {"rate": 8000}}, {"id": "b", "type": "test-signal"}, {"id": "m", "type": "mixer"}, {"id": "o", "type": "null-sink"}], "connections": [{"from": "a", "to": "m"}, {"from": "b", "to": "m", "convert": false}, {"from": "m", "to": "o"}]}"#,
         "node \"m\": \"b\" gives 48000 Hz mono but \"m\" takes 8000 Hz mono on input 1 (\"convert\": false)"),
    ]

    @Test(arguments: badGraphs.indices)
    func badGraphExitsTwoWithOneLine(index: Int) throws {
        let (text, words) = Self.badGraphs[index]
        let f = CLI.tempDir().appendingPathComponent("bad.json")
        try text.write(to: f, atomically: true, encoding: .utf8)
        for command in ["run", "validate"] {
            let r = try CLI.run([command, f.path])
            #expect(r.status == 2, "\(command): \(r.stderr)")
            #expect(r.stderrLines.count == 1, "one line: \(r.stderr)")
            #expect(r.stderr.hasPrefix("audiograph: \(f.path)") && r.stderr.contains(words), "\(r.stderr)")
            #expect(!r.stderr.contains("Fatal error") && r.stdout.isEmpty)
        }
    }

    /// The speech nodes' tuning parameters reject values outside their ranges before anything
    /// is opened (no model load, no device), naming the `--set` argument, node and parameter.
    @Test(arguments: [("asr.max-hmms=0", "asr", "max-hmms", "100...100000"),
                      ("asr.max-word-exits=abc", "asr", "max-word-exits", "1...1000"),
                      ("vad.background=-3", "vad", "background", "0...60")])
    func speechTuningOutOfRangeExitsTwo(set: String, node: String, parameter: String, range: String) throws {
        let r = try CLI.run(["run", "graphs/dictation.json", "--source", "/nonexistent.wav", "--set", set])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderrLines.count == 1, "one line: \(r.stderr)")
        #expect(r.stderr.hasPrefix("audiograph: --set \(set): ") && r.stderr.contains("node \"\(node)\"")
                && r.stderr.contains("parameter \"\(parameter)\"") && r.stderr.contains(range), "\(r.stderr)")
    }

    @Test func usageErrorsExitTwo() throws {
        for args in [["frobnicate"], ["run"], ["run", "Graphs/tone.json", "--bogus"], ["run", "Graphs/tone.json", "--set", "nodot"],
                     ["run", "/nonexistent.json"], ["run", "Graphs/tone.json", "--source", "x.wav"],
                     ["run", "Graphs/tone.json", "--block", "3"]] {
            let r = try CLI.run(args)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(r.stderrLines.count == 1 && r.stderr.hasPrefix("audiograph: "), "\(args): \(r.stderr)")
        }
    }

    @Test func unwritableOutputIsARuntimeError() throws {
        let r = try CLI.run(["run", "Graphs/tone.json", "--set", "out.path=/nonexistent-dir/x.wav"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("node \"out\"") && r.stderr.contains("cannot create"), "\(r.stderr)")
    }
}
