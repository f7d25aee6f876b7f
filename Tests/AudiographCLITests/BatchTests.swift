import AudioGraphTestSupport
import Foundation
import Testing

/// `audiograph batch`: results as `run --json` gives them, subtitles, resuming, a failed
/// input among good ones, shards, the progress bar on a terminal.
@Suite struct BatchTests {
    func finals(_ r: CLI.Result) -> [[String: Any]] {
        r.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["type"] as? String == "final" }
    }

    /// A folder of flite recordings (one in a subfolder), and the `run --json` output of each.
    static func spokenFolder() throws -> (folder: URL, files: [URL]) {
        let folder = CLI.tempDir().appendingPathComponent("batch-in")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("more"), withIntermediateDirectories: true)
        var files: [URL] = []
        for (i, text) in ["go forward ten meters", "find japanese restaurants nearby", "turn left at the corner"].enumerated() {
            let spoken = try #require(Flite.speech(text))
            let name = i == 2 ? "more/c.wav" : ["a.wav", "b.wav"][i]
            let to = folder.appendingPathComponent(name)
            try FileManager.default.copyItem(at: spoken, to: to)
            files.append(to)
        }
        return (folder, files)
    }

    @Test(.flite) func writesWhatRunPrintsWithSubtitlesAndResumes() throws {
        let (folder, files) = try Self.spokenFolder()
        let out = CLI.tempDir().appendingPathComponent("batch-out")
        let r = try CLI.run(["batch", "graphs/transcribe.json", folder.path, "--output", out.path, "--jobs", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines.count == 3, "one line per input: \(r.stdout)")
        #expect(r.stderr.contains("3 inputs: 3 transcribed"), "\(r.stderr)")
        for (file, name) in zip(files, ["a", "b", "more/c"]) {
            // The decoder a worker keeps from file to file starts each one as freshly loaded.
            let run = try CLI.run(["run", "graphs/transcribe.json", "--source", file.path, "--json"])
            let jsonl = try String(contentsOf: out.appendingPathComponent(name + ".jsonl"), encoding: .utf8)
            #expect(jsonl == run.stdout, "\(name): batch and run differ")
            let srt = try String(contentsOf: out.appendingPathComponent(name + ".srt"), encoding: .utf8)
            let vtt = try String(contentsOf: out.appendingPathComponent(name + ".vtt"), encoding: .utf8)
            let final = try #require(finals(run).first?["text"] as? String)
            #expect(srt.hasPrefix("1\n00:00:0") && srt.contains(" --> 00:00:0") && srt.contains(",") && srt.contains(final.split(separator: " ")[0]), "\(srt)")
            #expect(vtt.hasPrefix("WEBVTT\n\n00:00:0") && vtt.contains(" --> 00:00:0"), "\(vtt)")
            let subtitleWords = srt.split(separator: "\n").filter { !$0.contains("-->") && Int($0) == nil }
                .flatMap { $0.split(separator: " ") }.map(String.init)
            #expect(subtitleWords == final.split(separator: " ").map(String.init), "\(srt)")
        }
        // Again: everything is there, nothing is redone.
        let before = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("a.jsonl").path)[.modificationDate] as? Date
        let again = try CLI.run(["batch", "graphs/transcribe.json", folder.path, "--output", out.path])
        #expect(again.status == 0 && again.stderr.contains("0 transcribed, 3 already done"), "\(again.stderr)")
        let after = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("a.jsonl").path)[.modificationDate] as? Date
        #expect(before == after)
        // A missing subtitle file makes its input incomplete: only that one is done again.
        try FileManager.default.removeItem(at: out.appendingPathComponent("b.vtt"))
        let redo = try CLI.run(["batch", "graphs/transcribe.json", folder.path, "--output", out.path])
        #expect(redo.status == 0 && redo.stderr.contains("1 transcribed, 2 already done"), "\(redo.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("b.vtt").path))
    }

    /// A worker's decoder that met only silence never built its search over the language
    /// model (a stream with no speech does not wait for it); the next file builds it and
    /// hears what `run` hears.
    @Test(.flite) func aFileAfterSilenceHearsWhatRunHears() throws {
        let spoken = try #require(Flite.speech("find japanese restaurants nearby"))
        let folder = CLI.tempDir().appendingPathComponent("silence-first")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try WAVFixture.write(folder.appendingPathComponent("a-silence.wav"), rate: 16000, channels: 1, bits: 16,
                             samples: [Int32](repeating: 0, count: 16000))
        try FileManager.default.copyItem(at: spoken, to: folder.appendingPathComponent("b-speech.wav"))
        // Once, so the dictionary's cut (which records the model's coverage) is made.
        let run = try CLI.run(["run", "graphs/transcribe.json", "--source", spoken.path, "--json"])
        let out = CLI.tempDir().appendingPathComponent("silence-first-out")
        let r = try CLI.run(["batch", "graphs/transcribe.json", folder.path, "--output", out.path, "--jobs", "1"])
        #expect(r.status == 0 && r.stderr.contains("2 inputs: 2 transcribed"), "\(r.stderr)")
        let silent = try String(contentsOf: out.appendingPathComponent("a-silence.jsonl"), encoding: .utf8)
        let speech = try String(contentsOf: out.appendingPathComponent("b-speech.jsonl"), encoding: .utf8)
        #expect(!silent.contains("\"final\"") && speech == run.stdout && speech.contains("japanese restaurants"), "\(speech)")
    }

    @Test(.flite) func aFailedInputIsReportedAndTheOthersAreDone() throws {
        let folder = CLI.tempDir().appendingPathComponent("batch-bad")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try #require(Flite.speech("go forward ten meters")), to: folder.appendingPathComponent("good.wav"))
        try Data("RIFF....WAVEjunk".utf8).write(to: folder.appendingPathComponent("broken.wav"))
        let out = CLI.tempDir().appendingPathComponent("batch-bad-out")
        let r = try CLI.run(["batch", "graphs/transcribe.json", folder.path, "--output", out.path, "--jobs", "1"])
        #expect(r.status == 1)
        let errors = r.stderrLines.filter { $0.contains("broken.wav") }
        #expect(errors.count == 1 && errors[0].hasPrefix("audiograph: "), "one line names the file: \(r.stderr)")
        #expect(r.stderr.contains("1 transcribed, 1 failed"), "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("good.jsonl").path))
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("broken.jsonl").path))
        #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("Stack dump"))
    }

    @Test func shardsTakeEveryInputOnceBetweenThem() throws {
        let folder = CLI.tempDir().appendingPathComponent("batch-shards")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for i in 0..<11 {
            try WAVFixture.write(folder.appendingPathComponent("f\(i).wav"), rate: 16000, channels: 1, bits: 16,
                                 samples: Array(repeating: 0, count: 1600))
        }
        func listed(_ extra: [String]) throws -> [String] {
            let r = try CLI.run(["batch", "graphs/transcribe.json", folder.path, "--list"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdoutLines.map { String($0.split(separator: "\t")[0]) }
        }
        let all = try listed([])
        #expect(all.count == 11)
        for n in [1, 2, 3, 4, 11, 12] {
            let shards = try (0..<n).map { try listed(["--shard", "\($0)/\(n)"]) }
            let union = shards.flatMap { $0 }
            #expect(union.sorted() == all.sorted() && Set(union).count == union.count, "\(n) shards: \(shards)")
            #expect(shards.allSatisfy { abs($0.count - all.count / n) <= 1 }, "balanced: \(shards.map(\.count))")
        }
        for bad in ["3/3", "-1/2", "1", "a/b", "0/0"] {
            let r = try CLI.run(["batch", "graphs/transcribe.json", folder.path, "--shard", bad])
            #expect(r.status == 2 && r.stderrLines.count == 1 && r.stderr.contains("--shard"), "\(bad): \(r.stderr)")
        }
        let missing = try CLI.run(["batch", "graphs/transcribe.json", folder.appendingPathComponent("nope").path])
        #expect(missing.status == 2 && missing.stderrLines.count == 1 && missing.stderr.contains("nope"), "\(missing.stderr)")
    }

    @Test(.flite) func anInterruptedBatchResumes() throws {
        let long = try #require(Flite.speech(["go forward ten meters", "find japanese restaurants nearby",
                                              "turn left at the corner", "what is the weather like tomorrow"], pause: 1.5))
        let folder = CLI.tempDir().appendingPathComponent("batch-interrupt")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for i in 0..<6 { try FileManager.default.copyItem(at: long, to: folder.appendingPathComponent("t\(i).wav")) }
        let out = CLI.tempDir().appendingPathComponent("batch-interrupt-out")
        // Ctrl-C once the first input is done (its line is on stdout).
        let r = try CLI.run(["batch", "graphs/transcribe.json", folder.path, "--output", out.path, "--jobs", "1"],
                            interruptWhen: { !$0.isEmpty })
        #expect(r.status == 1 && r.stderr.contains("interrupted"), "\(r.stderr)")
        let done = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".jsonl") }
        #expect(!done.isEmpty && done.count < 6, "\(done)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).allSatisfy { !$0.hasSuffix(".partial") })
        let resumed = try CLI.run(["batch", "graphs/transcribe.json", folder.path, "--output", out.path])
        #expect(resumed.status == 0 && resumed.stderr.contains("\(6 - done.count) transcribed, \(done.count) already done"), "\(resumed.stderr)")
        // Every input's result is whole and the same (the same recording six times).
        let texts = try (0..<6).map { try String(contentsOf: out.appendingPathComponent("t\($0).jsonl"), encoding: .utf8) }
        #expect(Set(texts).count == 1 && texts[0].contains("\"type\":\"end\""))
    }

    @Test(.flite, .pseudoTerminal) func oneProgressBarForTheWholeJobOnATerminal() throws {
        let long = try #require(Flite.speech(["go forward ten meters", "find japanese restaurants nearby"], pause: 1))
        let folder = CLI.tempDir().appendingPathComponent("batch-tty")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for i in 0..<5 { try FileManager.default.copyItem(at: long, to: folder.appendingPathComponent("p\(i).wav")) }
        let out = CLI.tempDir().appendingPathComponent("batch-tty-out")
        let raw = try #require(try TerminalViewTests.inTerminal(["batch", "graphs/transcribe.json", folder.path, "--output", out.path, "--jobs", "1"]))
        // A moment after the first input is done: its line, the bar below it.
        let first = try #require(raw.range(of: "p0.jsonl"), "no line for the first input: \(raw.suffix(400))")
        let rest = raw[first.upperBound...]
        let barEnd = try #require(rest.range(of: " files")?.upperBound, "no bar after the first input: \(rest.prefix(400))")
        let screen = TerminalScreen(columns: TerminalViewTests.columns, showing: String(raw[..<barEnd])).lines.filter { !$0.isEmpty }
        #expect(screen.count >= 2 && screen.dropLast().joined().contains("p0.wav: "), "\(screen)")
        #expect(screen.last?.hasPrefix("  [#") == true && screen.last?.hasSuffix("/5 files") == true, "\(screen)")
        // At the end: five lines and the summary, no bar.
        let end = TerminalScreen(columns: TerminalViewTests.columns, showing: raw).lines.filter { !$0.isEmpty }
        #expect(!end.contains { $0.contains("files") && $0.hasPrefix("  [") }, "\(end)")
        #expect(end.contains { $0.contains("5 transcribed") }, "\(end)")
        // TERM=dumb: the lines and the summary, no bar drawn in place.
        let dumbOut = CLI.tempDir().appendingPathComponent("batch-dumb-out")
        let dumb = try #require(try TerminalViewTests.inTerminal(["batch", "graphs/transcribe.json", folder.path, "--output", dumbOut.path, "--jobs", "1"],
                                                                 term: "dumb"))
        #expect(!dumb.contains("\u{1B}") && !dumb.contains("[#") && dumb.contains("5 transcribed"), "\(dumb)")
    }

    /// Usage mistakes are one line and exit 2, before anything runs (an output that is no
    /// folder too: before, every input was transcribed and then failed to write); results
    /// that cannot be written fail their input with one line naming it and the system's reason.
    @Test func badUsageAndAnUnwritableOutput() throws {
        let folder = CLI.tempDir().appendingPathComponent("batch-usage")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("empty"), withIntermediateDirectories: true)
        let wav = folder.appendingPathComponent("a.wav")
        try WAVFixture.write(wav, rate: 16000, channels: 1, bits: 16, samples: Array(repeating: 0, count: 1600))
        let blocked = folder.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: blocked)
        for (args, words) in [(["--jobs", "0"], "--jobs"), (["--jobs", "many"], "--jobs"), ([], "missing input"),
                              ([folder.appendingPathComponent("empty").path], "no sound files"),
                              ([wav.path, wav.path], "given twice"), (["--bogus"], "unknown option"),
                              (["--output", "/dev/null"], "/dev/null: is a character device, not a folder"),
                              (["--output", blocked.path], "a-file: is a file, not a folder"),
                              // Under a regular file: no folder can be made there, even as root.
                              (["--output", blocked.appendingPathComponent("out").path], "Not a directory")] {
            let inputs = args.first.map { $0.hasPrefix("-") } ?? true ? [wav.path] : []
            let r = try CLI.run(["batch", "graphs/transcribe.json"] + (args == [] ? [] : inputs + args))
            #expect(r.status == 2 && r.stderrLines.count == 1 && r.stderr.contains(words), "\(args): \(r.stderr)")
        }
        // A recording and its conversion side by side: named, with what to do about it.
        let twins = folder.appendingPathComponent("twins")
        try FileManager.default.createDirectory(at: twins, withIntermediateDirectories: true)
        for name in ["take.wav", "take.aiff"] {
            try WAVFixture.write(twins.appendingPathComponent(name), rate: 16000, channels: 1, bits: 16, samples: Array(repeating: 0, count: 1600))
        }
        let twin = try CLI.run(["batch", "graphs/transcribe.json", twins.path])
        #expect(twin.status == 2 && twin.stderrLines.count == 1 && twin.stderr.contains("take.jsonl")
                && twin.stderr.contains("differ only in their extension"), "\(twin.stderr)")
        let badGraph = try CLI.run(["batch", "graphs/transcribe.json", wav.path, "--set", "asr.partials=loud"])
        #expect(badGraph.status == 2 && badGraph.stderrLines.count == 1 && badGraph.stderr.contains("partials"), "\(badGraph.stderr)")
        // A graph that writes a file of its own would write it for every input (two workers at
        // once); before, the inputs replaced each other's audio in it, or mixed it.
        let gain = CLI.packageRoot.appendingPathComponent("Graphs/gain.json").path
        let sink = try CLI.run(["batch", gain, wav.path, "--output", folder.appendingPathComponent("o").path], directory: folder)
        #expect(sink.status == 2 && sink.stderrLines.count == 1 && sink.stderr.contains(#"node "out" (wav-sink) would write output.wav for every input"#),
                "\(sink.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("output.wav").path))
        let toNull = try CLI.run(["batch", gain, wav.path, "--output", folder.appendingPathComponent("o").path, "--set", "out.path=/dev/null"],
                                 directory: folder)
        #expect(toNull.status == 0, "\(toNull.stderr)")
        // A folder input's file whose results go to a subfolder that cannot be made (a file
        // stands there): that input fails, named, with the system's reason.
        let tree = folder.appendingPathComponent("tree/sub")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        try WAVFixture.write(tree.appendingPathComponent("b.wav"), rate: 16000, channels: 1, bits: 16, samples: Array(repeating: 0, count: 1600))
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: out.appendingPathComponent("sub"))
        let r = try CLI.run(["batch", "graphs/transcribe.json", folder.appendingPathComponent("tree").path, "--output", out.path])
        #expect(r.status == 1 && r.stderr.contains("b.wav") && r.stderr.contains("cannot write the results"), "\(r.stderr)")
        #expect(r.stderrLines.filter { $0.contains("b.wav") }.count == 1)
        #expect(!r.stderr.contains("Error Domain"), "\(r.stderr)")
    }
}
