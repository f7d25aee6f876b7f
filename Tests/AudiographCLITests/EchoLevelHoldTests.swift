import AudioGraphTestSupport
import Foundation
import Testing

/// The `echo` control end to end: a canceller's `echo` output, connected to a vad's `echo`
/// input, keeps the vad's talker level over what plays, so sound far under the talker stays
/// background however long the answer; without the connection the level falls and it starts
/// speech.
@Suite struct EchoLevelHoldTests {
    /// The microphone: the talker (flite) from 1 s, then, from 3.5 s, 9 s of another voice 22
    /// dB under it (an answer's residual, as a room's late echo leaves it). The reference
    /// (what plays) carries sound from 2.4 s to the end, and is not in the microphone (that
    /// voice reversed): the canceller has nothing to take out.
    static func scene(in dir: URL) throws -> (mic: URL, ref: URL)? {
        guard let talker = Flite.speech("go forward ten meters"),
              let other = Flite.speech("find some italian restaurants nearby and move left three steps") else { return nil }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let sox = EchoCancellerTests.sox
        try sox(["-n", "-r", "16000", "-c", "1", "-b", "16", path("1s.wav"), "trim", "0", "1"])
        try sox(["-n", "-r", "16000", "-c", "1", "-b", "16", path("0.9s.wav"), "trim", "0", "0.9"])
        try sox(["-n", "-r", "16000", "-c", "1", "-b", "16", path("2.4s.wav"), "trim", "0", "2.4"])
        try sox([talker.path, "-r", "16000", path("talker.wav")])
        try sox([other.path, "-r", "16000", path("residual.wav"), "gain", "-22"])
        try sox([other.path, "-r", "16000", path("reversed.wav"), "reverse"])
        try sox([path("1s.wav"), path("talker.wav"), path("0.9s.wav"), path("residual.wav"), path("residual.wav"), path("1s.wav"), path("mic.wav")])
        try sox([path("2.4s.wav"), path("reversed.wav"), path("reversed.wav"), path("1s.wav"), path("ref.wav")])
        return (dir.appendingPathComponent("mic.wav"), dir.appendingPathComponent("ref.wav"))
    }

    /// The vad's speech onsets (seconds) over the scene, with or without `aec.echo → vad.echo`.
    static func onsets(_ scene: (mic: URL, ref: URL), in dir: URL, holding: Bool) throws -> [Double] {
        let graph = dir.appendingPathComponent("hold-\(holding).json")
        try """
        {"graph": "hold", "nodes": [
          {"id": "mic", "type": "file-source", "params": {"path": "\(scene.mic.path)"}},
          {"id": "ref", "type": "file-source", "params": {"path": "\(scene.ref.path)"}},
          {"id": "aec", "type": "echo-canceller"},
          {"id": "vad", "type": "vad", "params": {"background": 15}},
          {"id": "out", "type": "null-sink"}],
         "connections": [{"from": "mic", "to": "aec:0"}, {"from": "ref", "to": "aec:1"}, {"from": "aec", "to": "vad"}, {"from": "vad", "to": "out"}],
         "controls": [\(holding ? #"{"from": "aec.echo", "to": "vad.echo"}"# : "")]}
        """.write(to: graph, atomically: true, encoding: .utf8)
        let r = try CLI.run(["run", graph.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdoutLines.compactMap { line in
            guard let e = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  e["type"] as? String == "speech-start" else { return nil }
            return e["t"] as? Double
        }
    }

    @Test(.flite) func overWhatPlaysTheVadKeepsTheTalkersLevel() throws {
        let dir = CLI.tempDir()
        let scene = try #require(try Self.scene(in: dir))
        let held = try Self.onsets(scene, in: dir, holding: true)
        let learnt = try Self.onsets(scene, in: dir, holding: false)
        #expect(held.count == 1 && held.allSatisfy { $0 < 2 }, "the talker alone starts speech: \(held)")
        #expect(learnt.contains { $0 > 3.5 },
                "without the connection the level falls through what plays and the voice 22 dB under starts speech: \(learnt)")
    }
}
