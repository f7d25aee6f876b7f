import AudioGraphTestSupport
import Foundation
import Testing

/// The assistant loop offline: `graphs/assistant.json` with a flite "user" as its input and
/// its playback written to a WAV file (`--sink`), real decoder, real flite voice.
@Suite struct AssistantTests {
    func events(_ r: CLI.Result) -> [[String: Any]] {
        r.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func of(_ type: String, _ es: [[String: Any]]) -> [[String: Any]] { es.filter { $0["type"] as? String == type } }

    /// The words of a WAV file, as the transcribe graph hears them.
    func heard(_ wav: URL) throws -> String {
        let r = try CLI.run(["run", "graphs/transcribe.json", "--source", wav.path, "--json"])
        return of("final", events(r)).compactMap { $0["text"] as? String }.joined(separator: " ")
    }

    @Test(.flite) func wakeWordCommandAnswerTwiceInOneRun() throws {
        let user = try #require(Flite.script([("hello computer", 1.2), ("find japanese restaurants nearby", 6),
                                              ("hello computer", 1.2), ("go forward ten meters", 6)]))
        let answer = CLI.tempDir().appendingPathComponent("answer.wav")
        let r = try CLI.run(["run", "graphs/assistant.json", "--source", user.path, "--sink", answer.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let es = events(r)
        // The loop as a UI follows it: each node's phases in order.
        let phases = of("assistant", es).map { "\($0["node"]!) \($0["state"]!)" + (($0["reason"] as? String).map { " \($0)" } ?? "") }
        #expect(phases == ["asr waiting-for-wake-word",
                           "asr listening", "asr waiting-for-wake-word understood", "tts speaking", "tts waiting-for-wake-word",
                           "asr listening", "asr waiting-for-wake-word understood", "tts speaking", "tts waiting-for-wake-word"],
                "\(phases)")
        #expect(of("wake", es).count == 2)
        let finals = of("final", es).compactMap { $0["text"] as? String }
        #expect(finals.count == 2 && finals.first?.contains("japanese restaurants") == true
                && finals.last == "go forward ten meters", "\(finals)")
        #expect(of("earcon", es).compactMap { $0["name"] as? String } == ["start", "end", "start", "end"])
        #expect(of("speak-start", es).compactMap { $0["text"] as? String } == finals.map { "okay, " + $0 })
        // The start earcon plays after the wake word and is over before the command is heard.
        let t = { (e: [String: Any]) in e["t"] as? Double ?? -1 }
        let wakes = of("wake", es).map(t), starts = of("earcon", es).filter { $0["name"] as? String == "start" }.map(t)
        let onsets = of("speech-start", es).map(t)
        for (w, s) in zip(wakes, starts) {
            #expect(s >= w && s - w < 0.6, "start earcon \(s - w) s after the wake word")
            let command = onsets.first { $0 > w } ?? 0
            #expect(command >= s + 0.19, "the command (\(command) s) begins after the earcon (\(s) s, 0.19 s long)")
        }
        // Round trip through real audio: the answers, decoded again, say what was asked for.
        let said = try heard(answer)
        #expect(said.contains("japanese restaurants") && said.contains("forward ten meters"), "heard in the answer: \(said)")
    }

    @Test(.flite) func noCommandAfterTheWakeWordGoesBackWithTheErrorEarcon() throws {
        let user = try #require(Flite.script([("hello computer", 7)]))
        let r = try CLI.run(["run", "graphs/assistant.json", "--source", user.path, "--sink",
                             CLI.tempDir().appendingPathComponent("a.wav").path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let es = events(r)
        let back = of("assistant", es).first { $0["reason"] as? String == "no-speech" }
        let wake = of("wake", es).first?["t"] as? Double ?? -10
        #expect((back?["t"] as? Double).map { abs($0 - wake - 5) < 0.2 } == true, "back after the 5 s command timeout: \(String(describing: back))")
        #expect(of("earcon", es).compactMap { $0["name"] as? String } == ["start", "error"])
        #expect(of("final", es).isEmpty && of("speak-start", es).isEmpty)
    }

    /// `command-timeout` bounds when the command begins, not when its final comes: a command
    /// that begins 1 s after the wake word and ends past a 2 s timeout is understood, with no
    /// `no-speech` and no error earcon.
    @Test(.flite) func aCommandThatBeginsInTimeMayEndAfterTheTimeout() throws {
        let user = try #require(Flite.script([("hello computer", 1.0), ("find japanese restaurants nearby", 4)]))
        let r = try CLI.run(["run", "graphs/assistant.json", "--source", user.path, "--sink",
                             CLI.tempDir().appendingPathComponent("a.wav").path, "--json", "--set", "asr.command-timeout=2"])
        #expect(r.status == 0, "\(r.stderr)")
        let es = events(r)
        let wake = of("wake", es).first?["t"] as? Double ?? 0
        let final = of("final", es).first
        #expect((final?["end"] as? Double).map { $0 - wake > 2 } == true, "the command ends after the timeout: \(String(describing: final))")
        #expect(of("assistant", es).compactMap { $0["reason"] as? String } == ["understood"])
        #expect(of("earcon", es).compactMap { $0["name"] as? String } == ["start", "end"])
    }

    /// Grammar-aware end of speech: a pause inside a command ("find japanese ... restaurants
    /// nearby") does not end it; the same pause with the fixed short window does.
    @Test(.flite) func aPauseInsideACommandDoesNotEndIt() throws {
        let user = try #require(Flite.script([("find japanese", 0.8), ("restaurants nearby", 2)]))
        let aware = try CLI.run(["run", "graphs/command.json", "--source", user.path, "--json"])
        #expect(aware.status == 0, "\(aware.stderr)")
        #expect(of("final", events(aware)).compactMap { $0["text"] as? String } == ["find japanese restaurants nearby"])
        let fixed = try CLI.run(["run", "graphs/command.json", "--source", user.path, "--json",
                                 "--set", "eos.complete=0.5", "--set", "eos.incomplete=0.5"])
        let cut = of("final", events(fixed)).compactMap { $0["text"] as? String }
        #expect(cut.first != "find japanese restaurants nearby", "a fixed 0.5 s window cuts at the pause: \(cut)")
    }

    /// Its own voice comes straight back into what it listens to (the worst echo: mixed in,
    /// no delay, full level); the gate keeps every reply out of recognition. Without the gate
    /// the replies are recognised: the test can fail.
    @Test(.flite) func itDoesNotHearItselfInAPerfectEcho() throws {
        let sayings = ["find japanese restaurants nearby", "go forward ten meters", "status of flight l x forty"]
        let user = try #require(Flite.script(sayings.map { ($0, 6.0) }))
        func run(gate: Bool) throws -> [String] {
            let g = CLI.tempDir().appendingPathComponent("echo.json")
            try """
            {"nodes": [{"id": "user", "type": "file-source", "params": {"path": "\(user.path)"}},
                       {"id": "tts", "type": "speech-synth", "params": {"reply": "you said {text}", "gate": \(gate)}},
                       {"id": "room", "type": "mixer", "params": {"channels": 1}},
                       {"id": "rs", "type": "resampler", "params": {"rate": 16000}},
                       {"id": "vad", "type": "vad"},
                       {"id": "eos", "type": "end-of-speech", "params": {"mode": "short", "no-speech-timeout": 0}},
                       {"id": "asr", "type": "recognizer"}],
             "connections": [{"from": "user", "to": "room"}, {"from": "tts", "to": "room"}, {"from": "room", "to": "rs"},
                             {"from": "rs", "to": "vad"}, {"from": "vad", "to": "eos"}, {"from": "eos", "to": "asr"}]}
            """.write(to: g, atomically: true, encoding: .utf8)
            let r = try CLI.run(["run", g.path, "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(of("speak-end", events(r)).count >= sayings.count, "every reply was played")
            return of("final", events(r)).compactMap { $0["text"] as? String }
        }
        let gated = try run(gate: true)
        #expect(gated.count == sayings.count && !gated.contains { $0.contains("said") }
                && gated.last?.hasPrefix("status of flight") == true, "only the user's words are recognised: \(gated)")
        let open = try run(gate: false)
        #expect(open.contains { $0.contains("you said") || $0.hasPrefix("you") }, "without the gate the replies are heard: \(open)")
    }
}

/// Bad assistant input: one clear line, the documented exit status.
@Suite struct AssistantErrorTests {
    @Test(.flite) func badEarconWakeWordAndSink() throws {
        let user = try #require(Flite.speech("hello computer"))
        let sink = CLI.tempDir().appendingPathComponent("a.wav").path
        // An earcon file that is not there names the node and parameter.
        let missing = try CLI.run(["run", "graphs/assistant.json", "--source", user.path, "--sink", sink,
                                   "--set", "tts.earcon-start=nowhere/ding.wav"])
        #expect(missing.status == 1 && missing.stderr.contains("node \"tts\"") && missing.stderr.contains("earcon-start")
                && missing.stderr.contains("nowhere/ding.wav"), "\(missing.stderr)")
        // A wake word the dictionary cannot spell.
        let oov = try CLI.run(["run", "graphs/assistant.json", "--source", user.path, "--sink", sink,
                               "--set", "asr.wake-word=hello zzyzxq"])
        #expect(oov.status == 2 && oov.stderr.contains("zzyzxq") && oov.stderr.contains("wake-word"), "\(oov.stderr)")
        // A wake word with a keyphrase search.
        let both = try CLI.run(["validate", "graphs/wakeword.json", "--set", "asr.wake-word=hello computer"])
        #expect(both.status == 2 && both.stderr.contains("parameter \"wake-word\""), "\(both.stderr)")
        // --sink on a graph without playback.
        let noPlayback = try CLI.run(["run", "graphs/dictation.json", "--source", user.path, "--sink", sink])
        #expect(noPlayback.status == 2 && noPlayback.stderr.contains("--sink: the graph has no playback node"), "\(noPlayback.stderr)")
        // --sink NODE=FILE on a node that does not play.
        let notPlayback = try CLI.run(["run", "graphs/assistant.json", "--source", user.path, "--sink", "asr=\(sink)"])
        #expect(notPlayback.status == 2 && notPlayback.stderr.contains("node \"asr\": --sink: node is a recognizer, not a playback node"),
                "\(notPlayback.stderr)")
        #expect(![missing, oov, both, noPlayback, notPlayback].contains { $0.stderr.contains("Fatal error") || $0.stderr.split(separator: "\n").count > 1 })
    }
}

/// The seed app (`Sources/audiograph-assistant`), offline: a restaurant finder built on the
/// library answers a spoken search with what it found, aloud.
@Suite struct SeedAssistantTests {
    /// Runs the restaurant finder on `sayings` offline; its exit status, what it printed, and
    /// the WAV of what it said.
    func finder(_ sayings: [(String, Double)]) throws -> (status: Int32, text: String, answers: URL) {
        let user = try #require(Flite.script(sayings))
        let app = CLI.binary.deletingLastPathComponent().appendingPathComponent("audiograph-assistant")
        try #require(FileManager.default.isExecutableFile(atPath: app.path), "audiograph-assistant is built with the rest (swift build)")
        let answers = CLI.tempDir().appendingPathComponent("answers.wav")
        let p = Process()
        p.executableURL = app
        p.arguments = ["--source", user.path, "--sink", answers.path]
        p.currentDirectoryURL = CLI.packageRoot
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, text, answers)
    }

    @Test(.flite) func theRestaurantFinderAnswersAloud() throws {
        let (status, text, answers) = try finder([("hello computer", 1.2), ("find japanese restaurants nearby", 7)])
        #expect(status == 0, "\(text)")
        #expect(text.contains("says:  I found 3 japanese restaurants nearby"), "\(text)")
        let heard = try CLI.run(["run", "graphs/transcribe.json", "--source", answers.path, "--json"])
        let words = heard.stdoutLines.filter { $0.contains(#""type":"final""#) }.joined()
        #expect(words.contains("japanese"), "the answer, decoded again: \(words)")
    }

    /// A cuisine the model's dictionary lacks, heard through the app's vocabulary.
    @Test(.flite) func theRestaurantFinderKnowsShawarma() throws {
        let (status, text, _) = try finder([("hello computer", 1.2), ("find shawarma restaurants nearby", 7)])
        #expect(status == 0, "\(text)")
        #expect(text.contains("says:  I found one shawarma restaurant nearby"), "\(text)")
    }
}
