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
}
