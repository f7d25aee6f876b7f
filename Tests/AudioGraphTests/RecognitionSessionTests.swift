import AudioGraphTestSupport
import Foundation
import Testing

@testable import AudioGraph

@Suite struct SessionStateMachineTests {
    @Test func happyPath() throws {
        var m = SessionStateMachine()
        #expect(try m.start() == .startEngine)
        #expect(try m.stop() == .stopEngine)
        #expect(try m.stop() == .none, "a second stop does nothing")
        #expect(try m.cancel() == .cancelEngine, "cancel during stop discards")
        m.ended("cancelled")
        #expect(m.state == .ended("cancelled"))
    }

    @Test func misuseIsAnError() throws {
        var m = SessionStateMachine()
        #expect(throws: SessionError(.notStarted, "stop: the session has not started")) { try m.stop() }
        #expect(throws: SessionError.self) { try m.cancel() }
        _ = try m.start()
        #expect(throws: SessionError(.alreadyStarted, "start: the session was already started")) { try m.start() }
        m.ended("end-of-input")
        #expect(try m.cancel() == .none, "cancel after the end does nothing")
        #expect(throws: SessionError.self) { try m.stop() }
    }
}

/// The session over the real decoder, on flite speech.
@Suite struct RecognitionSessionTests {
    func graph(_ wav: URL, eos: String = "short", continuous: Bool = true, partials: Double = 0.1) -> GraphDescription {
        var g = GraphDescription(name: "session")
        g.addNode("src", type: "file-source", ["path": .string(wav.path)])
        g.addNode("vad", type: "vad")
        g.addNode("eos", type: "end-of-speech", ["mode": .string(eos)])
        g.addNode("asr", type: "recognizer", ["continuous": .bool(continuous), "partials": .number(partials)])
        g.connect("src", to: "vad")
        g.connect("vad", to: "eos")
        g.connect("eos", to: "asr")
        return g
    }

    func collect(_ s: RecognitionSession) async -> [EngineEvent] {
        var all: [EngineEvent] = []
        for await e in s.events { all.append(e) }
        return all
    }

    /// Taps, formats and state through the session itself (embedders never need its engine).
    @Test(.flite) func tapsFormatsAndStateThroughTheSession() async throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let s = try RecognitionSession(graph: graph(wav))
        #expect(s.state == .idle)
        #expect(s.format(ofNode: "src") == StreamFormat(sampleRate: 16000, channelCount: 1))
        let frames = Locked(0)
        try s.installTap(onNode: "vad", bufferSize: 1000) { b in frames.withLock { $0 += b.frameLength } }
        try s.start()
        let reason = await s.ended()
        #expect(reason == .endOfInput)
        #expect(s.state == .ended(reason))
        let expected = Int(((s.duration ?? 0) * 16000).rounded())
        #expect(frames.withLock { $0 } == expected && expected > 0, "the tap saw every frame: \(frames.withLock { $0 }) of \(expected)")
    }

    /// An interval shorter than a sample asks for partials as often as they come (it gave
    /// none: the interval in samples rounded to 0, which means none).
    @Test(.flite, arguments: [1e-9, 1e-320]) func anyPartialIntervalAboveZeroGivesPartials(seconds: Double) async throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let s = try RecognitionSession(graph: graph(wav, partials: seconds))
        let stream = s.events
        try s.start()
        var partials = 0
        for await e in stream { if case .partial = e { partials += 1 } }
        #expect(partials > 0)
    }

    @Test(.flite) func deliversPartialsThenAFinalThenTheEnd() async throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let s = try RecognitionSession(graph: graph(wav))
        let callbacks = Locked<[EngineEvent]>([])
        s.onEvent { e in callbacks.withLock { $0.append(e) } }
        let stream = s.events  // with a handler too, the stream buffers from when it is asked for
        try s.start()
        var events: [EngineEvent] = []
        for await e in stream { events.append(e) }
        #expect(events.contains { if case .partial = $0 { return true } else { return false } })
        let finals = events.compactMap { if case .final(_, let r) = $0 { return r.text } else { return nil } }
        #expect(finals == ["go forward ten meters"])
        if case .end(let reason, _) = events.last { #expect(reason == .endOfInput) } else { Issue.record("no end") }
        #expect(callbacks.withLock { $0.count } == events.count, "callbacks see the same events")
        #expect(throws: SessionError.self) { try s.stop() }
        try s.cancel()  // after the end: nothing to discard, no error
    }

    /// A session that has ended and is let go is freed, its engine and model with it (the
    /// engine's event handler once held the session, and so both, for good).
    @Test(.flite) func aSessionLetGoIsFreed() async throws {
        let wav = try #require(Flite.speech("go forward"))
        weak var released: RecognitionSession?
        do {
            let s = try RecognitionSession(graph: graph(wav))
            s.onEvent { _ in }
            released = s
            try s.start()
            _ = await s.ended()
        }
        for _ in 0..<200 where released != nil { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(released == nil)
    }

    /// With models kept loaded, sessions after the first reuse the first one's decoder and
    /// hear exactly what a fresh one hears.
    @Test(.flite) func aKeptModelHearsAsAFreshOne() async throws {
        let a = try #require(Flite.speech("find japanese restaurants nearby")), b = try #require(Flite.speech("go forward ten meters"))
        func finals(_ wav: URL) async throws -> [RecognitionResult] {
            let s = try RecognitionSession(graph: graph(wav))
            let stream = s.events
            try s.start()
            var out: [RecognitionResult] = []
            for await e in stream { if case .final(_, let r) = e { out.append(r) } }
            return out
        }
        let fresh = try await finals(b)
        RecognitionSession.keepsLoadedModels = true
        defer { RecognitionSession.keepsLoadedModels = false }
        _ = try await finals(a)
        let kept = try await finals(b)
        #expect(kept == fresh && !fresh.isEmpty)
    }

    @Test(.flite) func aStreamReadLateStillHasEveryEventFromTheStart() async throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let s = try RecognitionSession(graph: graph(wav))
        try s.start()
        _ = await s.ended()  // read nothing until the session is over
        let events = await collect(s)
        #expect(events.first == .state(.listening), "\(events.prefix(2))")
        #expect(events.contains { if case .final = $0 { return true } else { return false } })
        if case .end = events.last {} else { Issue.record("no end") }
    }

    /// Two sayings 1.5 s apart: two utterances.
    static var twoSayings: URL? { Flite.speech(["go forward ten meters", "find japanese restaurants nearby"], pause: 1.5) }

    /// Where `events` break stream order: each utterance's partials and final between its
    /// first speech-start and the next utterance's; each final after its utterance-end.
    func orderProblems(_ events: [EngineEvent]) -> [String] {
        var problems: [String] = []
        var opened = 0, closed = 0
        for e in events {
            switch e {
            case .speechStart where opened == closed: opened += 1
            case .utteranceEnd(_, let u, _, _): closed = u
            case .partial(_, let u, _) where u != opened || closed >= u:
                problems.append("partial of utterance \(u) after \(opened) opened, \(closed) closed")
            case .final(_, let r) where r.utterance != opened || closed != r.utterance:
                problems.append("final of utterance \(r.utterance) after \(opened) opened, \(closed) closed")
            default: break
            }
        }
        return problems
    }

    func finals(_ events: [EngineEvent]) -> [String] {
        events.compactMap { if case .final(_, let r) = $0 { return r.text } else { return nil } }
    }

    @Test(.flite) func eventsComeInStreamOrderThoughTheDecoderRunsBehind() async throws {
        let wav = try #require(Self.twoSayings)
        // As fast as it goes, the vad and end-of-speech run seconds ahead of the decoder.
        let s = try RecognitionSession(graph: graph(wav))
        try s.start()
        let events = await collect(s)
        #expect(orderProblems(events) == [])
        #expect(finals(events).count == 2, "\(finals(events))")
    }

    @Test(.flite) func aRunAfterACancelledOneKeepsStreamOrder() async throws {
        let wav = try #require(Self.twoSayings)
        let engine = try AudioEngine(graph: graph(wav), registry: .builtin)
        try engine.prepare()
        let events = Locked<[EngineEvent]>([])
        let cancelling = Locked(true)
        engine.setEventHandler { e in
            events.withLock { $0.append(e) }
            if case .partial = e, cancelling.withLock({ $0 }) { engine.cancel() }
        }
        // Cancelled at the first partial. The sources have long ended (fast run) but the
        // decoder is still at work: it stops, and no final follows. Onsets it never reached
        // are left over for the reset.
        #expect(try await engine.run() == .cancelled)
        #expect(finals(events.withLock { $0 }) == [])
        cancelling.withLock { $0 = false }
        events.withLock { $0 = [] }
        try engine.reset()
        #expect(try await engine.run() == .endOfInput)
        let second = events.withLock { $0 }
        #expect(orderProblems(second) == [])
        #expect(finals(second).count == 2, "\(finals(second))")
    }

    @Test(.flite) func singleUtteranceEndsAtTheEndOfSpeech() async throws {
        let wav = try #require(Flite.speech("go forward ten meters. find japanese restaurants nearby"))
        let s = try RecognitionSession(graph: graph(wav, eos: "short", continuous: false))
        try s.start()
        let events = await collect(s)
        if case .end(let reason, _) = events.last { #expect(reason == .endOfSpeech) } else { Issue.record("no end") }
    }

    @Test(.flite) func stopDeliversTheUtteranceInFlight() async throws {
        let wav = try #require(Flite.speech("go forward ten meters and then turn left at the corner"))
        let s = try RecognitionSession(graph: graph(wav, eos: "none"), options: .init(realtime: true))
        // Stop once a second of the audio has been read ("go forward" is in it, "corner" comes
        // after 3 s). Not on a partial: the language model loads while the audio already
        // plays, so the decoder's first partials may trail the audio by the load.
        try s.start()
        #expect(throws: SessionError.self) { try s.start() }
        // A thread of its own: the test pool's threads may all be busy under a full suite.
        Thread {
            while s.position < 1.0 { usleep(5000) }
            try? s.stop()
        }.start()
        let events = await collect(s)
        let finals = events.compactMap { if case .final(_, let r) = $0 { return r.text } else { return nil } }
        #expect(finals.count == 1 && finals[0].hasPrefix("go"), "\(finals)")
        #expect(!(finals.first ?? "").contains("corner"), "stopped before the end of the audio")
        if case .end(let reason, _) = events.last { #expect(reason == .stopped) } else { Issue.record("no end") }
    }

    /// The typed results, read as they come: volatile results over the utterance so far,
    /// then the final over the same range; a volatile result not yet read when the next
    /// one (or the final) comes is replaced. Fed by hand: which results a live reader sees
    /// depends on when it is scheduled.
    @Test func resultsAreVolatileThenFinalOverTheSameRange() async throws {
        let results = SpeechResults()
        var reader = results.makeAsyncIterator()
        results.take(.speechStart(node: "vad", t: 0.5, decided: 0.6))
        results.take(.partial(node: "asr", utterance: 1, text: "go"))
        let first = await reader.next()
        #expect(first?.isFinal == false && first?.text == "go" && first?.range == 0.5...0.5)
        results.take(.speechEnd(node: "vad", t: 1.4, decided: 1.5))
        results.take(.partial(node: "asr", utterance: 1, text: "go for"))
        results.take(.partial(node: "asr", utterance: 1, text: "go forward"))  // replaces the unread "go for"
        let second = await reader.next()
        #expect(second?.text == "go forward" && second?.range == 0.5...1.4)
        let r = RecognitionResult(utterance: 1, text: "go forward", start: 0.5, end: 1.4, confidence: 0.9,
                                  alternatives: [.init(text: "go forward", score: -10)],
                                  words: [.init(word: "go", start: 0.5, end: 0.8, confidence: 0.9)])
        results.take(.partial(node: "asr", utterance: 1, text: "go forward t"))
        results.take(.final(node: "asr", result: r))  // replaces the unread volatile result
        let final = await reader.next()
        #expect(final?.isFinal == true && final?.range == 0.5...1.4 && final?.words.count == 1 && final?.alternatives.count == 1)
        #expect(results.finalizationTime == 1.4)
        results.take(.end(.endOfInput))
        #expect(await reader.next() == nil)
    }

    /// A reader that starts only after the session has ended still gets every final (an
    /// unread volatile result was replaced by its final).
    @Test(.flite) func resultsKeepEveryFinalForALateReader() async throws {
        let wav = try #require(Flite.speech(["go forward ten meters", "find japanese restaurants nearby",
                                             "status of flight l x forty"], pause: 1.5))
        let s = try RecognitionSession(graph: graph(wav))
        try s.start()
        _ = await s.ended()
        var all: [SpeechResult] = []
        for await r in s.results { all.append(r) }
        #expect(all.map(\.utterance) == [1, 2, 3] && all.allSatisfy(\.isFinal), "\(all.map(\.text))")
        #expect(all.first?.text == "go forward ten meters")
    }

    /// `finish()` stops the audio and returns the reason once the last final is delivered;
    /// cancel after the end does nothing and does not throw.
    @Test(.flite) func finishReturnsAfterTheLastFinal() async throws {
        let wav = try #require(Flite.speech("go forward ten meters and then turn left at the corner"))
        let s = try RecognitionSession(graph: graph(wav, eos: "none"), options: .init(realtime: true))
        let finals = Locked<[String]>([])
        let partial = Locked(false)
        s.onEvent { e in
            if case .final(_, let r) = e { finals.withLock { $0.append(r.text) } }
            if case .partial = e { partial.withLock { $0 = true } }
        }
        try s.start()
        while !partial.withLock({ $0 }) { try await Task.sleep(nanoseconds: 20_000_000) }
        let reason = try await s.finish()
        // Stopped, unless a loaded machine let the file end first: either way after the final.
        #expect(reason == .stopped || reason == .endOfInput)
        #expect(finals.withLock { $0 }.count == 1 && finals.withLock { $0 }.first?.hasPrefix("go") == true, "\(finals.withLock { $0 })")
        try s.cancel()
        try s.cancel()
        #expect(try await s.finish() == reason, "finish after the end returns the same reason")
    }

    @Test(.flite) func cancelDiscardsPendingResults() async throws {
        let wav = try #require(Flite.speech("go forward ten meters and then turn left at the corner"))
        let s = try RecognitionSession(graph: graph(wav, eos: "none"), options: .init(realtime: true))
        s.onEvent { e in
            if case .partial = e { try? s.cancel() }
        }
        try s.start()
        let events = await collect(s)
        #expect(!events.contains { if case .final = $0 { return true } else { return false } })
        if case .end(let reason, _) = events.last { #expect(reason == .cancelled) } else { Issue.record("no end") }
    }

    @Test func noSpeechComesWithASuggestion() async throws {
        let silence = FileManager.default.temporaryDirectory.appendingPathComponent("ag-silence-\(UUID()).wav")
        var g = GraphDescription(name: "quiet")
        g.addNode("s", type: "test-signal", ["signal": "silence", "rate": 16000, "duration": 7])
        g.addNode("w", type: "wav-sink", ["path": .string(silence.path)])
        g.connect("s", to: "w")
        _ = try await AudioEngine(graph: g, registry: .builtin).run()
        let s = try RecognitionSession(graph: graph(silence))
        try s.start()
        let events = await collect(s)
        guard case .end(let reason, let suggestion) = events.last else { Issue.record("no end"); return }
        #expect(reason == .noSpeech)
        #expect(suggestion?.contains("silence") == true, "\(suggestion ?? "nil")")
    }
}
