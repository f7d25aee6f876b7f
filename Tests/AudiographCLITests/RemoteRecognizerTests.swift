import AudioGraphTestSupport
import Foundation
import Testing

/// `run --server`: a graph whose recognizer is a `remote-recognizer` on a real
/// `audiograph serve` gives the local graph's finals; its faults are one line each.
@Suite struct RemoteRecognizerTests {
    /// An `audiograph serve` on a free port, killed at the end.
    final class Server: @unchecked Sendable {
        let process = Process()
        let url: String
        let log: URL

        /// `port`: the WebSocket port (default: a free one the server picks).
        init(arguments: [String] = [], port: Int = 0) throws {
            log = CLI.tempDir().appendingPathComponent("serve.log")
            FileManager.default.createFile(atPath: log.path, contents: nil)
            process.executableURL = CLI.binary
            process.arguments = ["serve", "--wyoming", "none", "--http", "127.0.0.1:\(port)", "--graphs",
                                 CLI.packageRoot.appendingPathComponent("Graphs").path] + arguments
            process.standardError = try FileHandle(forWritingTo: log)
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            var port: Substring?
            for _ in 0..<600 where port == nil {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                if text.contains("serve: ready"), let r = text.range(of: #"websocket on 127\.0\.0\.1:\d+"#, options: .regularExpression) {
                    port = text[r].split(separator: ":").last
                }
                usleep(50_000)
            }
            guard let port else {
                // Not ready in 30 s: the process goes with the failed start (no deinit runs).
                Foundation.kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw CancellationError()
            }
            url = "ws://127.0.0.1:\(port)"
        }

        func kill() {
            if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        deinit { kill() }
    }

    /// Half a second of silence, 16 kHz mono.
    static func silence() throws -> String {
        let url = CLI.tempDir().appendingPathComponent("silence.wav")
        try WAVFixture.write(url, rate: 16000, channels: 1, bits: 16, samples: [Int32](repeating: 0, count: 8000))
        return url.path
    }

    /// The finals of a run, as their JSON lines without the node id.
    static func finals(_ r: CLI.Result) -> [String] {
        r.stdoutLines.filter { $0.contains(#""type":"final""#) }
    }

    /// What must be equal between a local and a remote final: the text, the utterance's and
    /// every word's times. The remote path carries 16-bit audio, so confidences may differ in
    /// the second or third decimal (utterances within 0.01, words within 0.02) and the decoder's raw scores by a few units.
    static func same(_ a: [String], _ b: [String]) -> Bool {
        func parse(_ s: String) -> [String: Any] { (try? JSONSerialization.jsonObject(with: Data(s.utf8))) as? [String: Any] ?? [:] }
        guard a.count == b.count else { return false }
        for (x, y) in zip(a.map(parse), b.map(parse)) {
            func n(_ o: [String: Any], _ k: String) -> Double { (o[k] as? NSNumber)?.doubleValue ?? .nan }
            guard x["text"] as? String == y["text"] as? String, n(x, "start") == n(y, "start"), n(x, "end") == n(y, "end"),
                  abs(n(x, "confidence") - n(y, "confidence")) <= 0.01 else { return false }
            let wx = x["words"] as? [[String: Any]] ?? [], wy = y["words"] as? [[String: Any]] ?? []
            guard wx.count == wy.count else { return false }
            for (p, q) in zip(wx, wy) where p["word"] as? String != q["word"] as? String || n(p, "start") != n(q, "start")
                || n(p, "end") != n(q, "end") || abs(n(p, "confidence") - n(q, "confidence")) > 0.02 { return false }
        }
        return true
    }

    @Test(.flite) func theRemoteGraphGivesTheLocalFinals() throws {
        let wav = try #require(Flite.speech(["go forward ten meters", "find japanese restaurants nearby"], pause: 1.5))
        let server = try Server()
        defer { server.kill() }
        let local = try CLI.run(["run", "Graphs/dictation.json", "--source", wav.path, "--json"])
        let remote = try CLI.run(["run", "Graphs/dictation.json", "--source", wav.path, "--json", "--server", server.url])
        #expect(remote.status == 0, "\(remote.stderr)")
        #expect(Self.finals(local).count == 2)
        #expect(Self.same(Self.finals(remote), Self.finals(local)), "\(Self.finals(local))\n\(Self.finals(remote))")
    }

    @Test(.sharedCorpus) func theCorpusGivesTheSameFinalsThroughTheServer() throws {
        let server = try Server()
        defer { server.kill() }
        let files = try FileManager.default.contentsOfDirectory(atPath: CLI.sharedCorpus.path)
            .filter { ($0.hasPrefix("ps_") || $0.hasPrefix("arctic_")) && $0.hasSuffix(".wav") }.sorted()
        var same = 0
        for f in files {
            let path = CLI.sharedCorpus.appendingPathComponent(f).path
            let local = Self.finals(try CLI.run(["run", "Graphs/dictation.json", "--source", path, "--json"]))
            // The whole suite runs beside this on two cores: the server's last results may take
            // longer than the node's default 10 s wait for them.
            let run = try CLI.run(["run", "Graphs/dictation.json", "--source", path, "--json", "--server", server.url,
                                   "--set", "asr.timeout=60"], timeout: 120)
            let remote = Self.finals(run)
            if Self.same(local, remote) && !local.isEmpty { same += 1 } else { Issue.record("\(f): local \(local) remote \(remote) \(run.stderr)") }
        }
        #expect(same == files.count && !files.isEmpty)
    }

    /// The assistant with `--server`: wake word and command recognised by the server, the
    /// answer spoken by it and played here (offline: the run waits for the server's last
    /// results and the answer before it ends).
    @Test(.flite) func theAssistantOnAServerWakesUnderstandsAndAnswers() throws {
        let user = try #require(Flite.script([("hello computer", 1.5), ("find japanese restaurants nearby", 3)]))
        let server = try Server()
        defer { server.kill() }
        let answer = CLI.tempDir().appendingPathComponent("answer.wav")
        for graph in ["Graphs/assistant.json", "Graphs/assistant-remote.json"] {
            let r = try CLI.run(["run", graph, "--source", user.path, "--sink", answer.path, "--json", "--server", server.url], timeout: 60)
            #expect(r.status == 0, "\(graph): \(r.stderr)")
            let lines = r.stdoutLines
            #expect(lines.filter { $0.contains(#""type":"wake""#) && $0.contains(#""node":"asr""#) }.count == 1, "\(graph): \(r.stdout)")
            #expect(Self.finals(r).count == 1 && Self.finals(r)[0].contains("japanese restaurants nearby"), "\(graph)")
            #expect(lines.contains { $0.contains(#""type":"speak-end""#) && $0.contains(#""cancelled":false"#) }, "\(graph): \(r.stdout)")
            #expect(lines.filter { $0.contains(#""type":"earcon""#) }.count == 2, "\(graph): start and end earcons")
            let heard = try CLI.run(["run", "Graphs/transcribe.json", "--source", answer.path])
            #expect(heard.stdout.contains("japanese restaurants nearby"), "\(graph): the answer said \(heard.stdout)")
        }
    }

    /// A file longer than the server's session limit: the server stops the session at the
    /// limit as a stop does (the second utterance, cut there, is "turn on" or "turn now": the
    /// cut falls within the client's last 0.1 s message), and the finals of
    /// what it heard come before the error (live
    /// input starts a new session instead: `aLiveRunOutlivesItsServersRestart`). Before, the
    /// client stopped reading at the server's `too-long` and its finals were lost.
    @Test(.flite) func theFinalsBeforeTheServersSessionLimitAreDelivered() throws {
        let user = try #require(Flite.script([("find japanese restaurants nearby", 1.5), ("turn on the kitchen light", 1.5),
                                              ("what time is it", 1.5)]))
        let server = try Server(arguments: ["--max-session-seconds", "5"])
        defer { server.kill() }
        let r = try CLI.run(["run", "Graphs/dictation.json", "--source", user.path, "--json", "--server", server.url])
        #expect(r.status == 1, "\(r.stderr)")
        let finals = Self.finals(r)
        #expect(finals.count == 2 && finals[0].contains("japanese restaurants") && finals[1].contains("\"text\":\"turn"), "\(r.stdout)")
        #expect(r.stderr.contains("session longer than 5 s of audio"), "\(r.stderr)")
    }

    /// Two questions with a pause between them longer than the server's idle limit (1 s
    /// here, 30 s by default): the speech connection, idle between the answers, is closed by
    /// the server, and the second answer connects again. Before, the second answer failed
    /// ("the connection to the server dropped") and the run ended with an error.
    @Test(.flite) func anAnswerAfterTheServersIdleLimitConnectsAgain() throws {
        let user = try #require(Flite.script([("hello computer", 1.5), ("find japanese restaurants nearby", 7),
                                              ("hello computer", 1.5), ("find japanese restaurants nearby", 4)]))
        let server = try Server(arguments: ["--idle-timeout", "1"])
        defer { server.kill() }
        let answer = CLI.tempDir().appendingPathComponent("answers.wav")
        // In real time, so the pause is one on the clock too.
        let r = try CLI.run(["run", "Graphs/assistant-remote.json", "--source", user.path, "--sink", answer.path,
                             "--json", "--realtime", "--server", server.url], timeout: 120)
        #expect(r.status == 0, "\(r.stderr)")
        let ends = r.stdoutLines.filter { $0.contains(#""type":"speak-end""#) && $0.contains(#""cancelled":false"#) }
        #expect(ends.count == 2, "\(r.stdout)")
        #expect(!r.stdoutLines.contains { $0.contains(#""type":"error""#) }, "\(r.stdout)")
    }

    /// A remote-synth whose server dies before the answer: the run ends with an error naming
    /// the server and the node, and nothing hangs (the recognizer here is local).
    @Test(.flite) func aRemoteSynthWhoseServerDiesEndsTheRunWithAnErrorNamingIt() throws {
        let user = try #require(Flite.script([("hello computer", 1.5), ("find japanese restaurants nearby", 3)]))
        let server = try Server()
        defer { server.kill() }
        let dir = CLI.tempDir()
        let text = try String(contentsOf: CLI.packageRoot.appendingPathComponent("Graphs/assistant.json"), encoding: .utf8)
            .replacingOccurrences(of: #""type": "speech-synth",\s*"params": \{"#, with: #""type": "remote-synth", "params": {"server": "\#(server.url)", "#,
                                  options: .regularExpression)
        #expect(text.contains("remote-synth"))
        let graph = dir.appendingPathComponent("assistant.json")
        try text.write(to: graph, atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: CLI.packageRoot.appendingPathComponent("Graphs/command.gram"), to: dir.appendingPathComponent("command.gram"))
        let r = try CLI.run(["run", graph.path, "--source", user.path, "--sink", dir.appendingPathComponent("a.wav").path, "--json", "--realtime"],
                            timeout: 60, during: { usleep(2_000_000); server.kill() })
        #expect(r.status == 1, "\(r.stderr)")
        let errors = r.stdoutLines.filter { $0.contains(#""type":"error""#) }
        #expect(errors.count == 1 && errors[0].contains("speech server \(server.url)") && errors[0].contains(#""node":"tts""#), "\(r.stdout)")
    }

    @Test func anEmptyRemoteWakeWordIsOneLineAndExit2() throws {
        let r = try CLI.run(["run", "Graphs/assistant-remote.json", "--source", try Self.silence(), "--set", "asr.wake-word= "])
        #expect(r.status == 2)
        #expect(r.stderrLines.count == 1 && r.stderr.contains(#"parameter "wake-word": expected a phrase"#), "\(r.stderr)")
    }

    /// The grammar a remote recognizer sends is read when the graph is checked, as a local
    /// one's: anything but a UTF-8 file is one line naming it, before any server is asked.
    @Test func aRemoteGrammarThatIsNoTextFileIsOneLineAndExit2() throws {
        let dir = CLI.tempDir()
        let pipe = dir.appendingPathComponent("grammar.pipe").path
        #expect(mkfifo(pipe, 0o600) == 0)
        let utf16 = dir.appendingPathComponent("utf16.gram")
        try Data([0xFF, 0xFE] + Array("#JSGF V1.0;".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }).write(to: utf16)
        let cases = [("/dev/zero", "is a character device, not a file"), (pipe, "is a pipe, not a file"),
                     (dir.path, "is a directory, not a file"), (dir.appendingPathComponent("none.gram").path, "no such file"),
                     (utf16.path, "not UTF-8 text (UTF-16: save it as UTF-8)")]
        for (path, words) in cases {
            let r = try CLI.run(["run", "Graphs/assistant-remote.json", "--source", try Self.silence(), "--sink", dir.appendingPathComponent("out.wav").path,
                                 "--set", "asr.grammar=\(path)"])
            #expect(r.status == 2 && r.stderrLines.count == 1 && r.stderr.contains(#"parameter "grammar": \#(path): \#(words)"#), "\(path): \(r.stderr)")
        }
    }

    @Test func aKeyphraseGraphOnAServerIsOneLine() throws {
        let r = try CLI.run(["run", "Graphs/wakeword.json", "--source", try Self.silence(), "--server", "ws://127.0.0.1:9"])
        #expect(r.status == 2)
        #expect(r.stderrLines.count == 1 && r.stderr.contains("keyphrase"), "\(r.stderr)")
    }

    /// A remote-synth whose server is gone, or lacks the voice, fails at start with one line.
    @Test func aRemoteSynthWithoutItsServerOrVoiceIsOneLine() throws {
        let server = try Server()
        defer { server.kill() }
        let out = CLI.tempDir().appendingPathComponent("said.wav")
        let graph = CLI.tempDir().appendingPathComponent("say.json")
        try #"""
            {"nodes": [{"id": "tts", "type": "remote-synth", "params": {"server": "ws://127.0.0.1:9", "text": "hello there"}},
                       {"id": "out", "type": "wav-sink", "params": {"path": "said.wav"}}],
             "connections": [{"from": "tts", "to": "out"}]}
            """#.write(to: graph, atomically: true, encoding: .utf8)
        let gone = try CLI.run(["run", graph.path])
        #expect(gone.status == 1 && gone.stderrLines.count == 1 && gone.stderr.contains("speech server ws://127.0.0.1:9"), "\(gone.stderr)")
        let noVoice = try CLI.run(["run", graph.path, "--set", "tts.server=\(server.url)", "--set", "tts.voice=nobody"])
        #expect(noVoice.status != 0 && noVoice.stderrLines.count == 1 && noVoice.stderr.contains("nobody"), "\(noVoice.stderr)")
        let said = try CLI.run(["run", graph.path, "--set", "tts.server=\(server.url)", "--set", "out.path=\(out.path)"])
        #expect(said.status == 0, "\(said.stderr)")
        let heard = try CLI.run(["run", "Graphs/transcribe.json", "--source", out.path])
        #expect(heard.stdout.contains("hello there"), "\(heard.stdout)")
    }

    /// A server that stops answering (SIGSTOP: the connection stays open) after the audio has
    /// gone: the run ends after the node's `timeout` with one error naming it, nothing hangs.
    @Test(.flite) func aServerThatStopsAnsweringEndsTheRunAfterTheTimeout() throws {
        let wav = try #require(Flite.speech(["go forward ten meters", "find japanese restaurants nearby"], pause: 1.5))
        let server = try Server()
        defer {
            Foundation.kill(server.process.processIdentifier, SIGCONT)
            server.kill()
        }
        let r = try CLI.run(["run", "Graphs/dictation.json", "--source", wav.path, "--json", "--realtime", "--server", server.url,
                             "--set", "asr.timeout=2"],
                            timeout: 40, during: { usleep(1_000_000); Foundation.kill(server.process.processIdentifier, SIGSTOP) })
        #expect(r.status == 1, "\(r.stderr)")
        let errors = r.stdoutLines.filter { $0.contains(#""type":"error""#) }
        #expect(errors.count == 1 && errors[0].contains("no last results within 2 s") && errors[0].contains(server.url), "\(r.stdout)")
    }

    @Test func aServerThatIsNotThereIsOneLineAndExit1() throws {
        let r = try CLI.run(["run", "Graphs/dictation.json", "--source", try Self.silence(), "--server", "ws://127.0.0.1:9"])
        #expect(r.status == 1)
        #expect(r.stderrLines.count == 1 && r.stderr.contains("speech server ws://127.0.0.1:9"), "\(r.stderr)")
    }

    @Test func aServerURLThatIsNotWebSocketIsOneLineAndExit2() throws {
        let r = try CLI.run(["run", "Graphs/dictation.json", "--source", try Self.silence(), "--server", "http://127.0.0.1:2700"])
        #expect(r.status == 2)
        #expect(r.stderrLines.count == 1 && r.stderr.contains("expected ws://HOST:PORT"), "\(r.stderr)")
    }

    @Test func aWrongKeyIsOneLine() throws {
        let keys = CLI.tempDir().appendingPathComponent("keys")
        try "kiosk s3cret\n".write(to: keys, atomically: true, encoding: .utf8)
        let server = try Server(arguments: ["--keys", keys.path])
        defer { server.kill() }
        let r = try CLI.run(["run", "Graphs/dictation.json", "--source", try Self.silence(), "--server", server.url,
                             "--set", "asr.app=kiosk", "--set", "asr.key=wrong"])
        #expect(r.status == 1)
        #expect(r.stderrLines.count == 1 && r.stderr.contains("refused the app key"), "\(r.stderr)")
    }

    @Test(.flite) func aServerKilledMidRunEndsTheRunWithAnErrorNamingIt() throws {
        let wav = try #require(Flite.speech(["go forward ten meters", "find japanese restaurants nearby"], pause: 1.5))
        let server = try Server()
        let started = Date()
        let r = try CLI.run(["run", "Graphs/dictation.json", "--source", wav.path, "--json", "--realtime", "--server", server.url],
                            timeout: 30, during: { usleep(1_500_000); server.kill() })
        #expect(r.status == 1)
        #expect(r.stdout.contains(#""type":"error""#) && r.stdout.contains("speech server \(server.url)"), "\(r.stdout)")
        #expect(Date().timeIntervalSince(started) < 20)  // nothing hangs
    }
}
