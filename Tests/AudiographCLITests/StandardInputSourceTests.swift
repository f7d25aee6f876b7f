import AudioGraphTestSupport
import Foundation
import Synchronization
import Testing

/// `run --source -`: WAV audio piped in (ffmpeg, sox, arecord) is heard as the same file
/// given by name is; what is not WAV, or nothing at all, is one line naming standard input.
@Suite struct StandardInputSourceTests {
    /// `audiograph ARGS` with `input` written to its standard input through a pipe.
    static func run(_ args: [String], input: Data) throws -> CLI.Result {
        signal(SIGPIPE, SIG_IGN)  // a run that ends before reading everything closes the pipe
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = args
        p.currentDirectoryURL = CLI.packageRoot
        p.environment = ProcessInfo.processInfo.environment.merging(["AUDIOGRAPH_CACHE": CLI.cacheFolder.path]) { $1 }
        let stdin = Pipe(), out = Pipe(), err = Pipe()
        // Foundation's pipes are inherited by every process the suite starts meanwhile; a
        // child holding this one's write end would keep the run from seeing its end.
        for h in [stdin.fileHandleForReading, stdin.fileHandleForWriting] { _ = fcntl(h.fileDescriptor, F_SETFD, FD_CLOEXEC) }
        p.standardInput = stdin
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let writer = Thread {
            let fd = stdin.fileHandleForWriting.fileDescriptor
            input.withUnsafeBytes { raw in
                var at = 0
                while at < raw.count {
                    let n = write(fd, raw.baseAddress! + at, min(4096, raw.count - at))  // a pipe's pieces
                    if n <= 0 { break }
                    at += n
                }
            }
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let errText = Mutex<Data>(Data()), errDone = DispatchSemaphore(value: 0)
        let errReader = Thread {
            let d = err.fileHandleForReading.readDataToEndOfFile()
            errText.withLock { $0 = d }
            errDone.signal()
        }
        errReader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        errDone.wait()
        return CLI.Result(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                          stderr: String(decoding: errText.withLock { $0 }, as: UTF8.self))
    }

    static func finals(_ r: CLI.Result) -> [String] {
        r.stdoutLines.filter { $0.contains(#""type":"final""#) }
    }

    @Test(.flite) func pipedWAVIsHeardAsTheFileIs() throws {
        let wav = try #require(Flite.speech("go forward ten meters. find japanese restaurants nearby"))
        let byName = try CLI.run(["run", "graphs/transcribe.json", "--source", wav.path, "--json"])
        try #require(byName.status == 0 && !Self.finals(byName).isEmpty, "\(byName.stderr)")
        let piped = try Self.run(["run", "graphs/transcribe.json", "--source", "-", "--json"], input: try Data(contentsOf: wav))
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(Self.finals(piped) == Self.finals(byName), "the same finals, words, times and confidences")
        #expect(piped.stdoutLines.last == #"{"type":"end","reason":"end-of-input"}"#)
    }

    /// As ffmpeg writes WAV to a pipe: the sizes it cannot come back to are 0xFFFFFFFF, and
    /// the audio is everything that follows (here 24-bit stereo at 8 kHz, converted).
    @Test func aStreamedHeaderIsReadToTheEnd() throws {
        let dir = CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("tone.wav")
        let frames = 8000 * 3
        try WAVFixture.write(file, rate: 8000, channels: 2, bits: 24,
                             samples: (0..<frames * 2).map { Int32(sin(Double($0 / 2) * 0.3) * 4_000_000) })
        var bytes = try Data(contentsOf: file)
        for at in [4, 40] { bytes.replaceSubrange(at..<at + 4, with: [0xFF, 0xFF, 0xFF, 0xFF]) }
        let out = dir.appendingPathComponent("out.wav")
        let r = try Self.run(["run", "Graphs/gain.json", "--source", "-", "--set", "gain.db=0", "--set", "out.path=\(out.path)",
                              "--set", "out.format=s24"], input: bytes)
        #expect(r.status == 0, "\(r.stderr)")
        let written = try WAVFixture.read(out)
        let original = try WAVFixture.read(file)
        #expect(written.rate == 8000 && written.channels == 2 && written.samples == original.samples, "every frame, unchanged")
    }

    @Test func whatIsNotWAVAndNothingAtAllAreOneLine() throws {
        let raw = try Self.run(["run", "graphs/transcribe.json", "--source", "-"], input: Data(repeating: 7, count: 64000))
        #expect(raw.status == 1 && raw.stderrLines.count == 1, "\(raw.stderr)")
        #expect(raw.stderr.contains("standard input: not a WAV file") && raw.stderr.contains("ffmpeg -i FILE -f wav -"), "\(raw.stderr)")
        let empty = try Self.run(["run", "graphs/transcribe.json", "--source", "-"], input: Data())
        #expect(empty.status == 1 && empty.stderr.contains("standard input: no audio came"), "\(empty.stderr)")
        // A header whose chunks before the audio run past a megabyte (metadata, a cover).
        var long = Data("RIFF".utf8) + Data([0xFF, 0xFF, 0xFF, 0xFF]) + Data("WAVELIST".utf8)
        long += Data([0x00, 0x00, 0x20, 0x00]) + Data(count: 0x20_0000)
        let unending = try Self.run(["run", "graphs/transcribe.json", "--source", "-"], input: long)
        #expect(unending.status == 1 && unending.stderr.contains("standard input: no fmt chunk in the first 1 MB"), "\(unending.stderr)")
        let twice = try Self.run(["run", "graphs/transcribe.json", "--source", "-", "--source", "-"], input: Data())
        #expect(twice.status == 2 && twice.stderr.contains("can feed one input"), "\(twice.stderr)")
    }
}
