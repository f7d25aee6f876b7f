import AudioGraphTestSupport
import Foundation
import Testing

/// A burst of captured audio (a pipe or network source written in one go, the backlog after
/// a stall) waits in the server's stream until the ring has room: nothing is dropped, and
/// the finals are those of the same audio read from a file.
@Suite struct CaptureBurstTests {
    @Test(.flite, .enabled(if: ProcessInfo.processInfo.environment["PULSE_SERVER"] != nil && Flite.isAvailable,
                   "needs the private PulseAudio daemon (Tools/test) and flite"))
    func aBurstIsNotDroppedAndDecodesAsTheFile() throws {
        let wav = try #require(Flite.speech("to head up to increase you watch for all year long in the north"))
        let speech = try #require(Flite.convert(wav, rate: 16000, channels: 1))
        // 4.4 s of speech, then silence so the utterance ends: more than the 2 s capture ring.
        let samples = try WAVFixture.read(speech).samples.map { Int16($0) } + [Int16](repeating: 0, count: 24000)
        let bytes = samples.withUnsafeBufferPointer { Data(buffer: $0) }
        let file = try CLI.run(["run", "graphs/dictation.json", "--source", speech.path, "--json"])
        let expected = file.stdoutLines.filter { $0.contains(#""type":"final""#) }.map(Self.text)
        #expect(!expected.isEmpty)

        let (_, daemonDir) = try PulseIntegrationTests.privateDaemon()
        defer { PulseIntegrationTests.killDaemon(daemonDir) }
        for run in 1...3 {
            let r = try CLI.run(["run", "graphs/dictation.json", "--json", "--set", "mic.device=agtest_pipe"], timeout: 60,
                                environment: ["PULSE_SERVER": "unix:\(daemonDir)/native"],
                                interruptWhen: { $0.contains(#""type":"final""#) }, started: { _ in
                Thread {
                    // Unpaced: as fast as the pipe takes it, once the graph listens.
                    usleep(1_500_000)
                    guard let h = FileHandle(forWritingAtPath: daemonDir + "/pipe") else { return }
                    h.write(bytes)
                    try? h.close()
                }.start()
            })
            #expect(r.status == 0, "run \(run): \(r.stderr)")
            #expect(!r.stdout.contains(#""type":"overrun""#), "run \(run): \(r.stdout)")
            let finals = r.stdoutLines.filter { $0.contains(#""type":"final""#) }.map(Self.text)
            #expect(finals == expected, "run \(run)")
        }
    }

    static func text(_ line: String) -> String {
        ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["text"] as? String ?? ""
    }
}
