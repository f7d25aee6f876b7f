import AudioGraphTestSupport
import Foundation
import Synchronization
import Testing

/// The assistant through a real sound server, in a "room": the private daemon loops the
/// user (its pipe source) and the playback sink's monitor (the assistant's own voice, a
/// perfect echo) into one sink whose monitor the graph captures (`Tools/pulse-daemon room`).
extension PulseIntegrationTests {
    /// Loads the room into the test daemon; returns what to unload.
    static func makeRoom() throws -> [String] {
        func pactl(_ args: [String]) throws -> String {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
            p.arguments = args
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            p.waitUntilExit()
            return String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return [
            try pactl(["load-module", "module-null-sink", "sink_name=agtest_room", "rate=16000", "channels=1"]),
            try pactl(["load-module", "module-loopback", "source=agtest_pipe", "sink=agtest_room", "latency_msec=30"]),
            try pactl(["load-module", "module-loopback", "source=agtest_sink.monitor", "sink=agtest_room", "latency_msec=30"]),
        ].filter { !$0.isEmpty }
    }

    static func unload(_ modules: [String]) {
        for m in modules.reversed() {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
            p.arguments = ["unload-module", m]
            try? p.run()
            p.waitUntilExit()
        }
    }

    /// Runs the assistant graph in the room for the user's `script`; its JSON events. With
    /// `answers`, the run is stopped a second after it has played that many (a machine under
    /// load answers late); without, when the script has had 4.5 s to be answered. `recording`
    /// gets what the speaker played meanwhile.
    /// `graph` and `extra` arguments: another assistant graph (the remote one and its server).
    static func assistantInTheRoom(_ user: URL, gate: Bool, answers: Int? = nil, recording: URL? = nil,
                                   graph: String = "graphs/assistant.json", extra: [String] = []) throws -> [[String: Any]] {
        let wav = try WAVFixture.read(user)
        let samples = wav.samples.map { Int16(truncatingIfNeeded: $0) }
        let seconds = Double(samples.count) / 16000
        let pipe = try #require(Self.pipe)
        let answered = answers.map { n in
            let seen = Mutex<Date?>(nil)
            return { @Sendable (out: String) -> Bool in
                guard out.components(separatedBy: #""type":"speak-end""#).count > n else { return false }
                return seen.withLock { first in
                    if first == nil { first = Date() }
                    return Date().timeIntervalSince(first!) >= 1
                }
            }
        }
        // The answer begins with the wake word: an assistant that hears itself wakes itself.
        // The room's two loopbacks add latency no sink reports (30 ms each, more under the
        // whole suite's load: an earcon's echo once came 0.35 s after it ended), so the echo
        // tail is set for this room, as a user sets it for theirs.
        let run = {
            try CLI.run(["run", graph, "--json", "--set", "mic.device=agtest_room.monitor",
                         "--set", "speaker.device=agtest_sink", "--set", "tts.reply=hello computer, you asked: {text}",
                         "--set", "tts.gate=\(gate)", "--set", "tts.echo-tail=0.6"] + extra,
                        interruptAfter: [seconds + (answers == nil ? 4.5 : 25)], timeout: seconds + 45,
                        during: { Self.feed(samples, to: pipe, after: 3) },  // after the model has loaded
                        interruptWhen: answered)
        }
        let r = try recording.map { try Self.recordingMonitor(to: $0, run) } ?? run()
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Speech the vad decided had started while the graph played its answers or earcons (or in
    /// the half second after).
    static func speechHeardWhileSpeaking(_ es: [[String: Any]]) -> Int {
        let t = { (e: [String: Any]) in e["t"] as? Double ?? -1 }
        let starts = es.filter { $0["type"] as? String == "speak-start" }.map(t)
        let ends = es.filter { $0["type"] as? String == "speak-end" }.map(t)
        let earcons = es.filter { $0["type"] as? String == "earcon" }.map { (t($0), t($0) + 0.25) }
        let onsets = es.filter { $0["type"] as? String == "speech-start" }.map { $0["decided"] as? Double ?? -1 }
        return (Array(zip(starts, ends)) + earcons).reduce(0) { n, span in
            n + onsets.filter { $0 >= span.0 && $0 <= span.1 + 0.5 }.count
        }
    }

    /// SpeechKit's architecture in the room: `assistant-remote.json` captures, gates, plays
    /// earcons and answers here; the wake word, the commands and the spoken answers come from
    /// a real `audiograph serve`.
    @Test(.flite, .pulseDaemon) func assistantInARoomOnAServerNeverHearsItself() throws {
        let user = try #require(Flite.script([("hello computer", 1.5), ("find japanese restaurants nearby", 8),
                                              ("hello computer", 1.5), ("go forward ten meters", 8)]))
        let server = try RemoteRecognizerTests.Server()
        defer { server.kill() }
        let modules = try Self.makeRoom()
        defer { Self.unload(modules) }
        let spoken = CLI.tempDir().appendingPathComponent("speaker.wav")
        let es = try Self.assistantInTheRoom(user, gate: true, answers: 2, recording: spoken,
                                             graph: "graphs/assistant-remote.json", extra: ["--server", server.url])
        func of(_ type: String) -> [[String: Any]] { es.filter { $0["type"] as? String == type } }
        let finals = of("final").compactMap { $0["text"] as? String }
        let story = es.filter { ["wake", "final", "assistant", "speak-start", "overrun", "error", "earcon"].contains($0["type"] as? String ?? "") }
            .map { "\($0["type"]!) \($0["t"] ?? $0["node"] ?? "") \($0["text"] ?? $0["state"] ?? $0["name"] ?? $0["lost"] ?? $0["message"] ?? "")" }
        #expect(of("wake").count == 2 && of("wake").allSatisfy { $0["node"] as? String == "asr" }, "woken by the user only: \(story)")
        #expect(finals.count == 2 && finals.first?.contains("japanese restaurants") == true
                && finals.last?.contains("forward ten meters") == true, "\(finals) \(story)")
        #expect(of("speak-end").count == 2, "both answers were played: \(story)")
        #expect(of("earcon").count >= 4, "start and end earcons of both commands: \(story)")
        #expect(Self.speechHeardWhileSpeaking(es) == 0, "the listener heard nothing of the answers and earcons")
        let heard = try CLI.run(["run", "graphs/transcribe.json", "--source", spoken.path, "--json"])
        let words = heard.stdoutLines.filter { $0.contains(#""type":"final""#) }.joined()
        #expect(words.contains("japanese restaurants") && words.contains("go forward"), "the speaker said: \(words)")
    }

    @Test(.flite, .pulseDaemon) func assistantInARoomNeverHearsItself() throws {
        let user = try #require(Flite.script([("hello computer", 1.5), ("find japanese restaurants nearby", 8),
                                              ("hello computer", 1.5), ("go forward ten meters", 8)]))
        let modules = try Self.makeRoom()
        defer { Self.unload(modules) }
        let spoken = CLI.tempDir().appendingPathComponent("speaker.wav")
        let es = try Self.assistantInTheRoom(user, gate: true, answers: 2, recording: spoken)
        func of(_ type: String) -> [[String: Any]] { es.filter { $0["type"] as? String == type } }
        let finals = of("final").compactMap { $0["text"] as? String }
        let story = es.filter { ["wake", "final", "assistant", "speak-start", "overrun", "underrun", "earcon"].contains($0["type"] as? String ?? "") }
            .map { "\($0["type"]!) \($0["t"] ?? $0["node"] ?? "") \($0["text"] ?? $0["state"] ?? $0["name"] ?? $0["lost"] ?? $0["frames"] ?? "")" }
        #expect(of("wake").count == 2, "woken by the user only: \(story)")
        #expect(finals.count == 2 && finals.first?.contains("japanese restaurants") == true
                && finals.last?.contains("forward ten meters") == true, "\(finals)")
        #expect(of("speak-end").count == 2, "both answers were played")
        // The same room without the gate: the assistant's answer wakes it.
        let once = try #require(Flite.script([("hello computer", 1.5), ("find japanese restaurants nearby", 8)]))
        let heardStory = es.filter { ["speak-start", "speak-end", "earcon", "speech-start", "speech-end"].contains($0["type"] as? String ?? "") }
            .map { "\($0["type"]!) \($0["t"] ?? "")/\($0["decided"] ?? "")" }
        #expect(Self.speechHeardWhileSpeaking(es) == 0, "the listener heard nothing of the answers and earcons: \(heardStory)")
        // Round trip through real audio: the answers, recorded from the sink's monitor and
        // decoded again, say what was asked for. The recording is a second process capturing
        // in real time beside the whole test suite, so its last words may come through the
        // recognizer changed ("go forward to and the first" once): the commands' heads are asked for.
        let heard = try CLI.run(["run", "graphs/transcribe.json", "--source", spoken.path, "--json"])
        let words = heard.stdoutLines.filter { $0.contains(#""type":"final""#) }.joined()
        #expect(words.contains("japanese restaurants") && words.contains("go forward"), "the speaker said: \(words) (\(of("overrun").count) overruns, \(of("underrun").count) underruns)")
        let open = try Self.assistantInTheRoom(once, gate: false)
        let openStory = open.filter { ["wake", "final", "speak-start", "speak-end", "speech-start"].contains($0["type"] as? String ?? "") }
            .map { "\($0["type"]!) \($0["t"] ?? "") \($0["text"] ?? "")" }
        #expect(Self.speechHeardWhileSpeaking(open) > 0, "without the gate the vad hears what it plays come back: \(openStory)")
    }
}
