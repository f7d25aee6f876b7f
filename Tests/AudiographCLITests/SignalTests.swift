import AudioGraphTestSupport
import Foundation
import Testing

/// SIGTERM (systemd, Docker) and SIGHUP (a closed terminal) stop a run as the first Ctrl-C
/// does: the utterance in flight gets its final result, files are finalised, exit 0. A
/// second signal of any of these cancels.
@Suite struct SignalTests {
    static let stopping: [Int32] = [SIGTERM, SIGHUP, SIGINT]

    @Test(.flite, arguments: stopping)
    func aSignalMidUtteranceStillDeliversItsFinal(_ signal: Int32) throws {
        let speech = try #require(Flite.speech("go forward ten meters find japanese restaurants nearby"))
        // Six seconds of silence after the words, so the signal comes while the input still
        // plays even when a busy machine holds the first partial back (the model loads while
        // the audio queues): a stop after the input's end would rightly end "end-of-input".
        let wav = CLI.tempDir().appendingPathComponent("padded-\(signal).wav")
        let words = try WAVFixture.read(speech)
        try WAVFixture.write(wav, rate: words.rate, channels: words.channels, bits: words.bits,
                             samples: words.samples + [Int32](repeating: 0, count: 6 * words.rate * words.channels))
        // Signalled at the first partial: the utterance has begun and not ended.
        let r = try CLI.run(["run", "Graphs/dictation.json", "--source", wav.path, "--realtime", "--json"],
                            signal: signal, interruptWhen: { $0.contains(#""type":"partial""#) })
        #expect(r.status == 0, "signal \(signal): \(r.stderr)")
        let finals = r.stdoutLines.filter { $0.contains(#""type":"final""#) }
        #expect(finals.count == 1 && finals[0].contains(#""text":"go"#), "signal \(signal): \(r.stdout)")
        #expect(r.stdoutLines.last == #"{"type":"end","reason":"stopped"}"#)
    }

    @Test(arguments: stopping)
    func aSignalLeavesTheRecordingWhole(_ signal: Int32) throws {
        let out = CLI.tempDir().appendingPathComponent("long.wav")
        let started = Date()
        let r = try CLI.run(["run", "Graphs/tone.json", "--realtime", "--json", "--set", "out.path=\(out.path)",
                             "--set", "sine.duration=30", "--set", "noise.duration=30"],
                            interruptAfter: [2.0], signal: signal)
        let elapsed = Date().timeIntervalSince(started)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines.last == #"{"type":"end","reason":"stopped"}"#)
        // Everything rendered before the signal is in the file: as much as the meter (upstream
        // of the writer) last reported when the run stopped, and never more than the run lasted.
        // The report, not the wall clock, is the lower bound: a loaded machine starts slowly.
        let seconds = Double(try WAVFixture.read(out).samples.count) / (2 * 48000)
        let metered = r.stdoutLines.last { $0.contains(#""type":"level""#) }
            .flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .flatMap { $0["t"] as? Double } ?? 0
        #expect(metered > 0, "the meter reported \(metered) s: \(r.stdout.suffix(300))")
        #expect(seconds >= metered - 0.001 && seconds <= elapsed + 0.1,
                "\(seconds) s written, \(metered) s metered, in a \(elapsed) s run")
    }

    /// A run still starting is ended by a second signal there and then: here its server takes
    /// the connection and never answers, which would hold the start for the node's two minutes.
    @Test func aSecondSignalWhileStartingEndsTheProcess() throws {
        let (listener, port) = try #require(LoopbackSocket.bound(listening: true))
        defer { close(listener) }
        let r = try CLI.run(["run", "Graphs/dictation.json", "--source", try RemoteRecognizerTests.silence(), "--json",
                             "--server", "ws://127.0.0.1:\(port)", "--set", "asr.timeout=120"],
                            interruptAfter: [2.0, 2.5], timeout: 60)
        #expect(r.status == 0 && r.stderr.contains("cancelled while starting") && r.stdout.isEmpty, "\(r.stderr)")
    }

    @Test func aSecondSignalOfAnotherKindCancels() throws {
        let g = CLI.tempDir().appendingPathComponent("endless.json")
        try """
            {"nodes": [{"id": "s", "type": "test-signal", "params": {"duration": 0}}, {"id": "o", "type": "null-sink"}],
             "connections": [{"from": "s", "to": "o"}]}
            """.write(to: g, atomically: true, encoding: .utf8)
        // SIGTERM then SIGHUP at once: the stop has not ended the run when the second comes.
        let r = try CLI.run(["run", g.path, "--realtime", "--json"], started: { pid in
            Thread {
                usleep(500_000)
                kill(pid, SIGTERM)
                kill(pid, SIGHUP)
            }.start()
        })
        #expect(r.status == 0)
        #expect(r.stdoutLines.last == #"{"type":"end","reason":"cancelled"}"#, "\(r.stdout)")
    }
}
