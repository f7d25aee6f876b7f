import AudioGraphTestSupport
import Foundation
import Testing

/// A disk that is full (/dev/full answers every write with ENOSPC): one line naming the node
/// and the file, exit 1, `error` then `end` in JSON; no crash, no hang.
@Suite struct DiskFullTests {
    @Test(.flite, .enabled(if: FileManager.default.fileExists(atPath: "/dev/full") && Flite.isAvailable, "needs /dev/full and flite"))
    func aFullDiskIsOneErrorLine() throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let r = try CLI.run(["run", "Graphs/gain.json", "--source", wav.path, "--set", "out.path=/dev/full"])
        #expect(r.status == 1)
        #expect(r.stderrLines.count == 1 && r.stderr.contains("node \"out\": /dev/full:") && r.stderr.contains("No space left on device"),
                "\(r.stderr)")
        let j = try CLI.run(["run", "Graphs/gain.json", "--source", wav.path, "--set", "out.path=/dev/full", "--json"])
        #expect(j.stdoutLines.suffix(2).first?.contains(#""type":"error""#) == true)
        #expect(j.stdoutLines.last == #"{"type":"end","reason":"error"}"#)
    }

    /// An input whose results do not fit leaves none of its three files and no temporary
    /// behind (the next run does it again); before, its .srt was in place and a .vtt.partial
    /// left beside it. The full disk is /dev/full behind the .vtt's temporary name.
    @Test(.flite, .enabled(if: FileManager.default.fileExists(atPath: "/dev/full") && Flite.isAvailable, "needs /dev/full and flite"))
    func batchResultsThatDoNotFitLeaveNothingHalfWritten() throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let dir = CLI.tempDir(), out = CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir); try? FileManager.default.removeItem(at: out) }
        try FileManager.default.copyItem(at: wav, to: dir.appendingPathComponent("talk.wav"))
        try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent("talk.vtt.partial").path, withDestinationPath: "/dev/full")
        let r = try CLI.run(["batch", "Graphs/transcribe.json", dir.path, "--output", out.path, "--jobs", "1"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("talk.wav: cannot write the results: ") && r.stderr.contains("talk.vtt.partial"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == [], "nothing left in the output folder")
    }

    /// `audiograph ARGS` started by sh as `BEFORE audiograph ARGS AFTER`: a command that runs
    /// it (`/usr/bin/prlimit --fsize=N`) and a redirection (`>/dev/full`, `>&-`, `| head`).
    /// Its stdout goes to /dev/null unless redirected; what it says on stderr is returned.
    static func shell(_ before: String, _ args: [String], _ after: String = "") throws -> CLI.Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "exec \(before) \"$0\" \"$@\" \(after)", CLI.binary.path] + args
        p.currentDirectoryURL = CLI.packageRoot
        p.environment = ProcessInfo.processInfo.environment.merging(["AUDIOGRAPH_CACHE": CLI.cacheFolder.path]) { $1 }
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return CLI.Result(status: p.terminationStatus, stdout: "", stderr: text)
    }

    /// A file past the size limit (`ulimit -f`): the node's write error, naming the file, and
    /// a WAV whose header counts what it holds. Before, the kernel's SIGXFSZ ended the process
    /// without a word (status 153). The vocabulary's dictionary copy, past the limit, says why.
    @Test(.flite, .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") && Flite.isAvailable, "needs prlimit and flite"))
    func aFileSizeLimitIsOneErrorLine() throws {
        let wav = try #require(Flite.speech("go forward ten meters and then turn left at the second corner please"))
        let dir = CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.wav")
        let r = try Self.shell("/usr/bin/prlimit --fsize=20000", ["run", "Graphs/gain.json", "--source", wav.path, "--set", "out.path=\(out.path)"])
        #expect(r.status == 1 && r.stderr.contains("node \"out\": \(out.path): cannot write: File too large"), "\(r.stderr)")
        let bytes = try Data(contentsOf: out)
        let dataSize = bytes.count >= 44 ? Int(bytes[40]) | Int(bytes[41]) << 8 | Int(bytes[42]) << 16 | Int(bytes[43]) << 24 : -1
        #expect(dataSize > 0 && 44 + dataSize <= bytes.count, "the header counts \(dataSize) bytes of \(bytes.count)")
        let vocabulary = dir.appendingPathComponent("words.txt")
        try "shawarma\n".write(to: vocabulary, atomically: true, encoding: .utf8)
        let v = try Self.shell("/usr/bin/prlimit --fsize=100000", ["run", "graphs/dictation.json", "--source", wav.path, "--set", "asr.vocabulary=\(vocabulary.path)"])
        #expect(v.status != 0 && v.stderr.contains("cannot write a dictionary with the vocabulary: File too large"), "\(v.stderr)")
    }

    /// A transcript redirected to a full disk (`> talk.txt`), or a standard output closed
    /// (`>&-`): said, exit 1. Before, both ended 0 with the transcript lost, and with stdout
    /// closed the events went into whatever descriptor took its number. Lines a reader closed
    /// its end on (`| head`) are not a failure.
    @Test(.flite, .enabled(if: FileManager.default.fileExists(atPath: "/dev/full") && Flite.isAvailable, "needs /dev/full and flite"))
    func aStandardOutputThatCannotBeWrittenIsAFailure() throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let full = try Self.shell("", ["run", "graphs/transcribe.json", "--source", wav.path], ">/dev/full")
        #expect(full.status == 1 && full.stderr.contains("audiograph: cannot write standard output: No space left on device"), "\(full.stderr)")
        let listing = try Self.shell("", ["nodes"], ">/dev/full")
        #expect(listing.status == 1 && listing.stderr.contains("audiograph: cannot write standard output"), "\(listing.stderr)")
        let closed = try Self.shell("", ["run", "graphs/transcribe.json", "--source", wav.path, "--json"], ">&-")
        #expect(closed.status == 1 && closed.stderr.contains("standard output: it was closed"), "\(closed.stderr)")
        // batch's line per input (FileHandle.write trapped on the full disk: SIGILL, 132).
        let dir = CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: wav, to: dir.appendingPathComponent("talk.wav"))
        let batch = try Self.shell("", ["batch", "graphs/transcribe.json", dir.path, "--output", dir.appendingPathComponent("out").path],
                                   ">/dev/full")
        #expect(batch.status == 1 && batch.stderr.contains("cannot write standard output: No space left on device"), "\(batch.stderr)")
        // A standard error that cannot be written is no crash either: the usage error's status.
        let quiet = try Self.shell("", ["nodes", "--bogus"], "2>/dev/full")
        #expect(quiet.status == 2)
        let fine = try Self.shell("", ["nodes"], "| head -c 10 >/dev/null")  // the status is head's
        #expect(fine.stderr.isEmpty, "\(fine.stderr)")
    }
}
