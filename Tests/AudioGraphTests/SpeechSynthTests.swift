import AudioGraphTestSupport
import Foundation
import Synchronization
import Testing

@testable import AudioGraph
@testable import AudioGraphSpeech

/// `speech-synth` with Debian's flite, checked through real audio: what it says is decoded
/// again by the recognizer.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/libflite_cmu_us_rms.so") && SpeechModel.isDefaultInstalled,
                "needs flite1-dev and pocketsphinx-en-us"))
struct SpeechSynthTests {
    static func tempFile(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("synth-\(UUID().uuidString)-\(name)").path
    }

    /// Runs `graph` to its end, collecting its events.
    static func run(_ graph: GraphDescription, options: AudioEngine.Options = .init(),
                    during: (@Sendable (AudioEngine) async throws -> Void)? = nil) async throws -> [EngineEvent] {
        try await observing(graph, options: options, onEvent: nil, during: during)
    }

    /// `run`, with `onEvent` called on the delivery thread for each event.
    static func observing(_ graph: GraphDescription, options: AudioEngine.Options,
                          onEvent: (@Sendable (AudioEngine, EngineEvent) -> Void)?,
                          during: (@Sendable (AudioEngine) async throws -> Void)?) async throws -> [EngineEvent] {
        let engine = try AudioEngine(graph: graph, registry: .builtin, options: options)
        try engine.prepare()
        let events = Locked<[EngineEvent]>([])
        engine.setEventHandler { e in
            events.withLock { $0.append(e) }
            onEvent?(engine, e)
        }
        let running = Task { try await engine.run() }
        if let during { try await during(engine) }
        _ = try await running.value
        return events.withLock { $0 }
    }

    /// The words of a WAV file, as the transcribe graph hears them.
    static func heard(_ wav: String) async throws -> String {
        var g = GraphDescription(name: "hear")
        g.addNode("src", type: "file-source", ["path": .string(wav)])
        g.addNode("vad", type: "vad")
        g.addNode("asr", type: "recognizer")
        g.connect("src", to: "vad")
        g.connect("vad", to: "asr")
        return try await run(g).compactMap { if case .final(_, let r) = $0 { r.text } else { nil } }.joined(separator: " ")
    }

    @Test func itSaysItsTextAndTheRecognizerHearsIt() async throws {
        let out = Self.tempFile("said.wav")
        var g = GraphDescription(name: "say")
        g.addNode("tts", type: "speech-synth", ["text": "find japanese restaurants nearby"])
        g.addNode("out", type: "wav-sink", ["path": .string(out)])
        g.connect("tts", to: "out")
        let events = try await Self.run(g)
        let speech = events.compactMap { e -> String? in
            switch e {
            case .speakStart(let n, let id, let text, let t): "start \(n) \(id) \(text) \(t)"
            case .speakEnd(let n, let id, _, let cancelled): "end \(n) \(id) \(cancelled)"
            default: nil
            }
        }
        #expect(speech == ["start tts 1 find japanese restaurants nearby 0.0", "end tts 1 false"])
        let end = events.compactMap { if case .speakEnd(_, _, let t, _) = $0 { t } else { nil } }.first ?? 0
        #expect(end > 1.5 && end < 4, "spoke for \(end) s")
        let words = try await Self.heard(out)
        #expect(words.contains("japanese restaurants"), "heard: \(words)")
    }

    /// From code: `speak` returns after the text was played; `cancelSpeech` stops a long one
    /// mid-sentence, and its `speak-end` says so.
    @Test func speakReturnsAfterPlaybackAndCancelStopsMidSentence() async throws {
        var g = GraphDescription(name: "talk")
        g.addNode("tts", type: "speech-synth")
        g.addNode("out", type: "null-sink")
        g.connect("tts", to: "out")
        let results = Locked<[Bool]>([])
        // The second text is cancelled from the delivery thread as its start is reported
        // (not after a sleep: the test's own task may be scheduled late on a busy machine).
        let events = try await Self.observing(g, options: .init(realtime: true), onEvent: { engine, e in
            if case .speakStart(_, 2, _, _) = e { engine.firstNode(of: SpeechSynth.self)?.cancelSpeech() }
        }, during: { engine in
            let synth = try #require(engine.firstNode(of: SpeechSynth.self))
            let played = try await synth.speak("go forward ten meters")
            results.withLock { $0.append(played) }
            let finished = try await synth.speak("this is a long sentence that will not be heard to its end because it is cancelled")
            results.withLock { $0.append(finished) }
            engine.stop()
        })
        #expect(results.withLock { $0 } == [true, false])
        let ends = events.compactMap { if case .speakEnd(_, let id, let t, let c) = $0 { (id, t, c) } else { nil } }
        #expect(ends.map(\.0) == [1, 2] && ends.map(\.2) == [false, true], "\(ends)")
        let starts = events.compactMap { if case .speakStart(_, let id, _, let t) = $0 { (id, t) } else { nil } }
        #expect(starts.count == 2)
        if starts.count == 2 && ends.count == 2 {
            #expect(ends[1].1 - starts[1].1 < 1.5, "cancelled mid-sentence: \(ends[1].1 - starts[1].1) s played")
            #expect(starts[0].1 < ends[0].1 && ends[0].1 <= starts[1].1)
        }
    }

    /// Nothing to say is no error; characters flite cannot say are skipped; a full queue is.
    @Test func badTextAndAFullQueue() async throws {
        var g = GraphDescription(name: "talk")
        g.addNode("tts", type: "speech-synth", ["queue": 2])
        g.addNode("out", type: "null-sink")
        g.connect("tts", to: "out")
        _ = try await Self.run(g, options: .init(realtime: true)) { engine in
            let synth = try #require(engine.firstNode(of: SpeechSynth.self))
            #expect(try synth.enqueue("") == nil)
            #expect(try synth.enqueue("日本語 ☕") == nil)
            #expect(FliteVoice.speakable("café ☕ now") == "cafe now")
            var refused: EngineError?
            for _ in 0..<6 {
                do { try synth.enqueue("a sentence long enough to take a while to say") } catch let e as EngineError { refused = e }
            }
            #expect(refused?.parameter == "queue", "\(String(describing: refused))")
            synth.cancelSpeech()
            engine.stop()
        }
    }

    /// Each voice's library is opened by name when a graph speaks (not linked): every voice
    /// the node offers loads and speaks, kal at 8 kHz, the others at 16 kHz.
    @Test func everyVoiceLoadsAndSpeaks() throws {
        for name in FliteVoice.names {
            let voice = try #require(FliteVoice(name), "voice \(name)")
            #expect(voice.sampleRate == (name == "kal" ? 8000 : 16000), "\(name): \(voice.sampleRate) Hz")
            let said = voice.synthesize("hello", rate: 1)
            #expect(said.count > voice.sampleRate / 10 && said.contains { abs($0) > 0.01 }, "\(name): \(said.count) samples")
        }
        #expect(FliteVoice("hal9000") == nil)
    }

    /// A run without spaces reaches flite cut at 64 characters. Before, flite's recursion over
    /// 2,000 characters of `-1-1…` overflowed a civetweb handler's small stack (a server died
    /// on one `speak`), and its time grew with the square of the length (30,000 letters held
    /// flite's lock for more than ten minutes).
    @Test func aLongRunWithoutSpacesIsCut() async throws {
        let run = String(repeating: "-1", count: 1000)
        let said = FliteVoice.speakable("say " + run + " now")
        let words = said.split(separator: " ")
        #expect(words.first == "say" && words.last == "now" && words.count == 2 + 2000 / 64 + 1, "\(words.count) words")
        #expect(words.allSatisfy { $0.count <= FliteVoice.longestToken } && words.dropFirst().dropLast().joined() == run)
        // Spoken on a thread with a small stack, as civetweb's are.
        let voice = try #require(FliteVoice("rms"))
        let samples = Mutex<Int?>(nil)
        let thread = Thread { let n = voice.synthesize(said, rate: 1).count; samples.withLock { $0 = n } }
        thread.stackSize = 128 << 10
        thread.start()
        while samples.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(20)) }
        #expect(samples.withLock { $0 }! > 16000, "speaks")
    }

    @Test func anUnknownVoiceListsTheVoices() throws {
        var g = GraphDescription(name: "say")
        g.addNode("tts", type: "speech-synth", ["voice": "hal9000"])
        g.addNode("out", type: "null-sink")
        g.connect("tts", to: "out")
        let error = #expect(throws: GraphErrors.self) { _ = try AudioEngine(graph: g, registry: .builtin) }
        #expect(error?.description.contains("rms, slt, awb, kal16, kal") == true, "\(String(describing: error))")
    }

    /// A graph that answers: the recognizer's final, said back by the reply template, and
    /// that answer heard again by the recognizer (a round trip through real audio).
    @Test(.flite) func aReplySaysBackWhatWasRecognised() async throws {
        let wav = try #require(Flite.speech(["find japanese restaurants nearby"], pause: 0))
        let out = Self.tempFile("answer.wav")
        var g = GraphDescription(name: "echo")
        g.addNode("src", type: "file-source", ["path": .string(wav.path)])
        g.addNode("vad", type: "vad")
        g.addNode("eos", type: "end-of-speech", ["mode": "short", "no-speech-timeout": 0])
        g.addNode("asr", type: "recognizer")
        g.addNode("tts", type: "speech-synth", ["reply": "you asked for {text}"])
        g.addNode("out", type: "wav-sink", ["path": .string(out)])
        g.connect("src", to: "vad"); g.connect("vad", to: "eos"); g.connect("eos", to: "asr")
        g.connect("tts", to: "out")
        let events = try await Self.run(g, options: .init(realtime: true)) { engine in
            // Until the answer has been played (or 20 s).
            for _ in 0..<200 {
                try await Task.sleep(nanoseconds: 100_000_000)
                if (engine.firstNode(of: SpeechSynth.self)?.spoken ?? 0) > 0 { break }
            }
            engine.stop()
        }
        let said = events.compactMap { if case .speakStart(_, _, let text, _) = $0 { text } else { nil } }
        #expect(said.first?.hasPrefix("you asked for") == true, "\(said)")
        let words = try await Self.heard(out)
        #expect(words.contains("you asked for") && words.contains("restaurants"), "heard: \(words)")
    }

    /// Finals that come faster than their answers can be said, past the queue: every final
    /// with words is answered or counted in a warning. Before, the answers the queue had no
    /// room for were dropped without a word.
    @Test(.flite) func answersThereIsNoRoomForAreReported() async throws {
        let wav = try #require(Flite.speech(["go forward ten meters", "find japanese restaurants nearby",
                                             "status of flight l x forty", "go back two meters"], pause: 1.5))
        var g = GraphDescription(name: "answers")
        g.addNode("src", type: "file-source", ["path": .string(wav.path)])
        g.addNode("vad", type: "vad")
        g.addNode("eos", type: "end-of-speech", ["mode": "short", "no-speech-timeout": 0])
        g.addNode("asr", type: "recognizer", ["partials": 0, "continuous": true])
        g.addNode("tts", type: "speech-synth", ["reply": "you said {text}, and that takes me a long time to say back to you", "queue": 1])
        g.addNode("out", type: "null-sink")
        g.connect("src", to: "vad"); g.connect("vad", to: "eos"); g.connect("eos", to: "asr")
        g.connect("tts", to: "out")
        // The answers go out to a file, not into the room: nothing gates the listeners, so
        // every utterance is heard while the first answer is still being said.
        g.controls = []
        g.connectControl("asr.results", to: "tts.text")
        let events = try await Self.run(g)
        let finals = events.filter { if case .final(_, let r) = $0 { !r.text.isEmpty } else { false } }.count
        let said = events.filter { if case .speakStart = $0 { true } else { false } }.count
        let dropped = events.compactMap { e -> Int? in
            guard case .warning(let node, let message) = e, node == "tts", message.contains("not spoken: its queue (1) was full") else { return nil }
            return Int(message.prefix { $0.isNumber })
        }.reduce(0, +)
        #expect(finals == 4 && dropped > 0, "finals \(finals), dropped \(dropped)")
        #expect(said + dropped == finals, "said \(said), dropped \(dropped), finals \(finals)")
    }
}

/// Earcons the speech queue has no room for are counted and said in a warning, as answers
/// are; they were dropped without a word.
@Suite struct EarconQueueTests {
    @Test(.flite) func earconsThereIsNoRoomForAreReported() throws {
        let h = try NodeHarness("speech-synth", ["queue": 1], inputs: [], registry: .builtin)
        let synth = try #require(h.node as? SpeechSynth)
        _ = try synth.enqueue("a text that fills the queue of one")
        // Until it is synthesised and announced, it is not in the queue the earcons meet.
        let worker = try #require(synth.worker)
        for _ in 0..<30_000 where worker.pending.load(ordering: .acquiring) > 0 { usleep(1000) }  // flite loads first
        synth.play(.start)
        synth.play(.end)
        let warnings = synth.takeEvents(nodeId: "tts").compactMap { e -> String? in
            if case .warning(_, let m) = e { m } else { nil }
        }
        #expect(warnings == ["2 earcons were not played: its queue (1) was full (raise the node's queue)"], "\(warnings)")
        #expect(synth.takeEvents(nodeId: "tts").isEmpty, "reported once")
    }
}
