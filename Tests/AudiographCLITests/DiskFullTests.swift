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
}
