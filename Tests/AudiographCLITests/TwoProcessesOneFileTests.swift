import Foundation
import Synchronization
import Testing

/// Two `audiograph run`s writing one file (the same graph started twice, its `output.wav`):
/// the second is refused, and the first writes its file whole. Before, both wrote it, each at
/// its own offsets, and the file held their audio mixed.
@Suite struct TwoProcessesOneFileTests {
    @Test func aFileAnotherRunWritesIsRefused() throws {
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("out.wav").path
        let args = ["run", "Graphs/gain.json", "--source", "", "--set", "out.path=\(out)", "--set", "gain.db=0"]
        let input = dir.appendingPathComponent("in.wav")
        try WAVFixture.write(input, rate: 16000, channels: 1, bits: 16, samples: (0..<32000).map { Int32($0 % 100) * 100 })
        var first = args
        first[3] = input.path
        let second = first
        first.append("--realtime")  // 2 s: the second starts meanwhile
        let refused = Mutex<CLI.Result?>(nil)
        let r = try CLI.run(first, during: {
            while !FileManager.default.fileExists(atPath: out) { usleep(10_000) }
            let s = try? CLI.run(second)
            refused.withLock { $0 = s }
        })
        #expect(r.status == 0, "\(r.stderr)")
        var answered: CLI.Result?
        for _ in 0..<600 where answered == nil {
            answered = refused.withLock { $0 }
            if answered == nil { usleep(50_000) }
        }
        let s = try #require(answered)
        #expect(s.status == 1 && s.stderr.contains("is a file another process is writing"), "\(s.stderr)")
        let written = try WAVFixture.read(URL(fileURLWithPath: out))
        #expect(written.samples == (0..<32000).map { Int32($0 % 100) * 100 }, "the first run's audio, whole")
        // Once the first has finished, the file is free.
        #expect(try CLI.run(second).status == 0)
    }
}
