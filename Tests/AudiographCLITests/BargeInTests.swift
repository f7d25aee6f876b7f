import AudioGraphTestSupport
import Foundation
import Testing

/// Barge-in offline: the assistant (`graphs/assistant.json` with `tts.barge-in=true`) is
/// interrupted by a command spoken over its answer. With file input there is no echo (the
/// answer goes to a file, not back into the microphone), so what the vad hears during the
/// answer is the user alone; the room with an echo canceller is `Tools/bench echo`'s.
@Suite struct BargeInTests {
    static func events(_ r: CLI.Result) -> [[String: Any]] {
        r.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    static func run(_ user: URL, _ extra: [String] = []) throws -> (CLI.Result, [[String: Any]]) {
        let answers = CLI.tempDir().appendingPathComponent("answers.wav")
        let r = try CLI.run(["run", "Graphs/assistant.json", "--source", user.path, "--sink", answers.path, "--json",
                             "--set", "tts.barge-in=true"] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        return (r, events(r))
    }

    static func of(_ es: [[String: Any]], _ type: String) -> [[String: Any]] { es.filter { $0["type"] as? String == type } }

    static func story(_ es: [[String: Any]]) -> String {
        es.filter { ["wake", "final", "assistant", "speak-start", "speak-end", "barge-in", "earcon", "speech-start"].contains($0["type"] as? String ?? "") }
            .map { "\($0["type"]!) \($0["t"] ?? "") \($0["text"] ?? $0["state"] ?? $0["name"] ?? $0["cancelled"] ?? "")" }.joined(separator: "; ")
    }

    @Test(.flite) func aCommandOverTheAnswerStopsItAndIsTheNextCommand() throws {
        let user = try #require(Flite.script([("hello computer", 1.5), ("find japanese restaurants nearby", 1.5),
                                              ("go forward ten meters", 5)]))
        let (r, es) = try Self.run(user)
        let finals = Self.of(es, "final").compactMap { $0["text"] as? String }
        #expect(finals.count == 2 && finals[0].hasSuffix("japanese restaurants nearby") && finals[1] == "go forward ten meters",
                "\(Self.story(es))")
        let ends = Self.of(es, "speak-end")
        #expect(ends.count == 2 && ends[0]["cancelled"] as? Bool == true && ends[1]["cancelled"] as? Bool == false, "\(Self.story(es))")
        let barge = try #require(Self.of(es, "barge-in").first)
        // The barge-in names the onset of the user's speech, which the second final starts at.
        let second = try #require(Self.of(es, "final").last)
        #expect(barge["t"] as? Double == second["start"] as? Double, "\(Self.story(es))")
        #expect(Self.of(es, "earcon").contains { $0["name"] as? String == "cancel" }, "the cancel earcon plays")
        #expect(Self.of(es, "wake").count == 1, "no wake word was needed for the interrupting command")
        // Deterministic, as every file run.
        let (again, _) = try Self.run(user)
        #expect(again.stdout == r.stdout)
    }

    /// `assistant-barge-in.json`: the canceller in the capture path, the answer as its
    /// reference. Offline there is no echo, so the graph must behave as the plain assistant
    /// with barge-in does, and end when the input does (the answer feeds the canceller: the
    /// canceller ends with the microphone, not with the reference).
    @Test(.flite) func theGraphWithTheCancellerIsInterruptedAndEnds() throws {
        let user = try #require(Flite.script([("hello computer", 1.5), ("find japanese restaurants nearby", 1.5),
                                              ("go forward ten meters", 5)]))
        let answers = CLI.tempDir().appendingPathComponent("answers.wav")
        let r = try CLI.run(["run", "Graphs/assistant-barge-in.json", "--source", user.path, "--sink", answers.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let es = Self.events(r)
        let finals = Self.of(es, "final").compactMap { $0["text"] as? String }
        #expect(finals.count == 2 && finals[0].hasSuffix("japanese restaurants nearby") && finals[1] == "go forward ten meters",
                "\(Self.story(es))")
        #expect(Self.of(es, "barge-in").count == 1 && Self.of(es, "warning").isEmpty, "\(Self.story(es))")
        #expect(Self.of(es, "end").first?["reason"] as? String == "end-of-input")
    }

    /// "hello computer", a breath, then the command, over the answer: a new wake-up, and the
    /// command is the utterance after it.
    @Test(.flite) func theWakeWordOverTheAnswerStartsANewCommand() throws {
        let user = try #require(Flite.script([("hello computer", 1.5), ("find japanese restaurants nearby", 1.5),
                                              ("hello computer", 0.7), ("go forward ten meters", 5)]))
        let (_, es) = try Self.run(user)
        let finals = Self.of(es, "final").compactMap { $0["text"] as? String }
        #expect(finals.count == 2 && finals[0].hasSuffix("japanese restaurants nearby") && finals[1] == "go forward ten meters",
                "\(Self.story(es))")
        #expect(Self.of(es, "wake").count == 2 && Self.of(es, "barge-in").count == 1, "\(Self.story(es))")
    }

    @Test(.flite) func anAnswerNobodyInterruptsPlaysToItsEnd() throws {
        let user = try #require(Flite.script([("hello computer", 1.5), ("find japanese restaurants nearby", 6)]))
        let (_, es) = try Self.run(user)
        #expect(Self.of(es, "barge-in").isEmpty && Self.of(es, "speak-end").count == 1
                && Self.of(es, "speak-end")[0]["cancelled"] as? Bool == false, "\(Self.story(es))")
    }

    /// The link is real: without `tts.barge-in -> asr.barge-in` the answer still stops, but
    /// the interrupting speech is not taken as a command (the recognizer waits for its wake word).
    @Test(.flite) func withoutTheBargeInConnectionTheSpeechIsNotACommand() throws {
        let user = try #require(Flite.script([("hello computer", 1.5), ("find japanese restaurants nearby", 1.5),
                                              ("go forward ten meters", 5)]))
        let text = try String(contentsOf: CLI.packageRoot.appendingPathComponent("Graphs/assistant.json"), encoding: .utf8)
            .replacingOccurrences(of: #",\s*\{"from": "tts.barge-in", "to": "asr.barge-in"\}"#, with: "", options: .regularExpression)
        #expect(!text.contains("tts.barge-in"))
        let dir = CLI.tempDir()
        let graph = dir.appendingPathComponent("assistant.json")
        try text.write(to: graph, atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: CLI.packageRoot.appendingPathComponent("Graphs/command.gram"),
                                         to: dir.appendingPathComponent("command.gram"))
        let r = try CLI.run(["run", graph.path, "--source", user.path, "--sink", dir.appendingPathComponent("a.wav").path,
                             "--json", "--set", "tts.barge-in=true"])
        let es = Self.events(r)
        #expect(Self.of(es, "barge-in").count == 1 && Self.of(es, "speak-end").first?["cancelled"] as? Bool == true, "\(Self.story(es))")
        #expect(Self.of(es, "final").count == 1, "\(Self.story(es))")
    }
}
