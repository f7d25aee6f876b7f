import AudioGraphTestSupport
import Foundation
import Testing

/// Control connections: what flows between nodes besides audio is in the graph file,
/// checked by `validate`, drawn by `dot`, listed by `nodes`, and real: a link left out is a
/// link that does not exist.
@Suite struct ControlConnectionTests {
    /// The bundled assistant graph without its "controls", as the first releases wrote it.
    func oldAssistant() throws -> URL {
        let text = try String(contentsOf: CLI.packageRoot.appendingPathComponent("Graphs/assistant.json"), encoding: .utf8)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var old = json
        old["controls"] = nil
        let url = CLI.tempDir().appendingPathComponent("old-assistant.json")
        try JSONSerialization.data(withJSONObject: old).write(to: url)
        try FileManager.default.copyItem(at: CLI.packageRoot.appendingPathComponent("Graphs/command.gram"),
                                         to: url.deletingLastPathComponent().appendingPathComponent("command.gram"))
        return url
    }

    /// A graph of `controls` around a recognizer, a synth and a vad (audio as the assistant's).
    func graph(controls: String) throws -> URL {
        let url = CLI.tempDir().appendingPathComponent("g.json")
        try """
        {"nodes": [{"id": "mic", "type": "pulse-source"}, {"id": "vad", "type": "vad"},
                   {"id": "asr", "type": "recognizer"}, {"id": "tts", "type": "speech-synth", "params": {"reply": "ok {text}"}},
                   {"id": "out", "type": "null-sink"}],
         "connections": [{"from": "mic", "to": "vad"}, {"from": "vad", "to": "asr"}, {"from": "tts", "to": "out"}],
         "controls": [\(controls)]}
        """.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test func validateCatchesAWrongControlConnection() throws {
        let cases: [(String, String)] = [
            (#"{"from": "asr.result", "to": "tts.text"}"#, #"recognizer has no control port "result" (did you mean "results"?)"#),
            (#"{"from": "tts.text", "to": "asr.gate"}"#, #""tts.text" is an input"#),
            (#"{"from": "asr.results", "to": "vad.gate"}"#, #""asr.results" carries text, "vad.gate" takes gate"#),
            (#"{"from": "tts.playing", "to": "vad.echo"}"#, #""tts.playing" carries gate, "vad.echo" takes echo"#),
            (#"{"from": "asrr.results", "to": "tts.text"}"#, #"control connection from unknown node "asrr" (did you mean "asr"?)"#),
            (#"{"from": "asr", "to": "tts.text"}"#, #""from": "asr" is not "id.port""#),
        ]
        for (control, words) in cases {
            let r = try CLI.run(["validate", try graph(controls: control).path])
            #expect(r.status == 2 && r.stderrLines.count == 1 && r.stderr.contains(words), "\(control): \(r.stderr)")
            #expect(r.stderr.contains("g.json:5:15:"), "placed at the connection: \(r.stderr)")
        }
        let good = try CLI.run(["validate", try graph(controls: #"{"from": "asr.results", "to": "tts.text"}"#).path])
        #expect(good.status == 0 && !good.stderr.contains("notice"), "\(good.stderr)")
    }

    @Test func dotDrawsTheAssistantLoop() throws {
        let r = try CLI.run(["dot", "graphs/assistant.json"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(r.stdout.contains(#""asr" -> "tts" [style=dashed"#) && r.stdout.contains(#""tts" -> "vad" [style=dashed"#)
                && r.stdout.contains(#""asr" -> "eos" [style=dashed"#), "\(r.stdout)")
    }

    @Test func dotDrawsEachKindInItsColour() throws {
        let r = try CLI.run(["dot", "graphs/assistant-barge-in.json"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(r.stdout.contains(#""aec" -> "vad" [style=dashed, color=darkorange"#)
                && r.stdout.contains(#""aec" -> "vad" [style=dashed, color=firebrick"#), "\(r.stdout)")
    }

    @Test func nodesListsTheControlPorts() throws {
        let r = try CLI.run(["nodes"])
        #expect(r.stdout.contains(".results") && r.stdout.contains("control output, text")
                && r.stdout.contains(".gate") && r.stdout.contains("control input, gate"), "\(r.stdout)")
    }

    /// A graph file of the last release (no "controls") runs as before: the links it relied
    /// on are added with one notice, and its events are those of the explicit graph.
    @Test(.flite) func anOldGraphGetsItsLinksWithANoticeAndRunsTheSame() throws {
        let user = try #require(Flite.script([("hello computer", 1.2), ("find japanese restaurants nearby", 5)]))
        let old = try oldAssistant()
        let v = try CLI.run(["validate", old.path])
        #expect(v.status == 0 && v.stderrLines.filter { $0.contains("notice") }.count == 1
                && v.stderr.contains("asr.results -> tts.text") && v.stderr.contains("asr.verdict -> eos.verdict"), "\(v.stderr)")
        func events(_ g: String) throws -> [String] {
            let r = try CLI.run(["run", g, "--source", user.path, "--sink", CLI.tempDir().appendingPathComponent("a.wav").path, "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdoutLines.filter { !$0.contains("\"type\":\"end") }
        }
        let explicit = try events("graphs/assistant.json"), implicit = try events(old.path)
        #expect(explicit.count > 10 && explicit == implicit)
    }

    /// Without `asr.results -> tts.text` the synth answers nothing, and without the gate
    /// links the listeners hear what it plays: the connections carry what they say.
    @Test(.flite) func aLinkLeftOutDoesNotExist() throws {
        let user = try #require(Flite.script([("hello computer", 1.2), ("find japanese restaurants nearby", 5)]))
        let text = try String(contentsOf: CLI.packageRoot.appendingPathComponent("Graphs/assistant.json"), encoding: .utf8)
        let cut = text.replacingOccurrences(of: #"{"from": "asr.results", "to": "tts.text"},"#, with: "")
        #expect(cut != text)
        let dir = CLI.tempDir(), g = dir.appendingPathComponent("no-reply.json")
        try cut.write(to: g, atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: CLI.packageRoot.appendingPathComponent("Graphs/command.gram"),
                                         to: dir.appendingPathComponent("command.gram"))
        let r = try CLI.run(["run", g.path, "--source", user.path, "--sink", CLI.tempDir().appendingPathComponent("a.wav").path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#""type":"final""#) && !r.stdout.contains(#""type":"speak-start""#)
                && !r.stdout.contains(#""type":"earcon""#), "\(r.stdout)")
    }
}
