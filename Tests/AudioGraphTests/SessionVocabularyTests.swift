import AudioGraphTestSupport
import Foundation
import Testing

@testable import AudioGraph

/// Words from code (`RecognitionSession.addVocabulary`), with the real decoder and model on
/// flite speech: before the first utterance, between two, and the entries it refuses.
@Suite struct SessionVocabularyTests {
    static let sentence = "find shawarma restaurants nearby"
    static let entries = [VocabularyEntry("shawarma"), VocabularyEntry("find shawarma restaurants")]

    func graph(_ wav: URL, recognizer: [String: ParameterValue] = [:]) -> GraphDescription {
        var g = GraphDescription(name: "vocabulary")
        g.addNode("src", type: "file-source", ["path": .string(wav.path)])
        g.addNode("vad", type: "vad")
        g.addNode("eos", type: "end-of-speech")
        g.addNode("asr", type: "recognizer", recognizer)
        g.connect("src", to: "vad")
        g.connect("vad", to: "eos")
        g.connect("eos", to: "asr")
        return g
    }

    func finals(_ events: AsyncStream<EngineEvent>) async -> (texts: [String], warnings: [String]) {
        var texts: [String] = [], warnings: [String] = []
        for await e in events {
            if case .final(_, let r) = e { texts.append(r.text) }
            if case .warning(_, let m) = e { warnings.append(m) }
        }
        return (texts, warnings)
    }

    @Test(.flite) func wordsAddedBeforeStartAreHeard() async throws {
        let wav = try #require(Flite.speech(Self.sentence))
        let without = try RecognitionSession(graph: graph(wav))
        try without.start()
        #expect(await !finals(without.events).texts.joined(separator: " ").contains("shawarma"), "the model alone cannot spell it")

        let s = try RecognitionSession(graph: graph(wav))
        try s.addVocabulary(Self.entries + [VocabularyEntry("ramen", pronunciation: ["R", "AA", "M", "AH", "N"])])
        try s.start()
        let (texts, warnings) = await finals(s.events)
        #expect(texts == [Self.sentence], "\(texts)")
        #expect(warnings.isEmpty, "\(warnings)")
    }

    /// A hundred new words from code, as a server's client may send: PocketSphinx's own way of
    /// adding a word also adds it to the binary language model, whose tables it then reads past
    /// (a crash at a hundred words, wrong scores with fewer). They must give what the same words
    /// in a `vocabulary` file give, read before the model loads.
    @Test(.flite) func manyWordsFromCodeGiveWhatTheFileGives() async throws {
        let wav = try #require(Flite.speech(Self.sentence))
        var seed: UInt64 = 7
        let words = (0..<100).map { _ in
            String((0..<6).map { _ -> Character in
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                return Character(UnicodeScalar(UInt8(97 + (seed >> 33) % 26)))
            })
        } + ["shawarma"]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("words-\(UUID().uuidString).txt")
        try words.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }

        func results(_ s: RecognitionSession) async -> [String] {
            var out: [String] = []
            for await e in s.events {
                if case .final(_, let r) = e { out.append("\(r.text) \(r.words.map { String(format: "%.3f", $0.confidence) })") }
            }
            return out
        }
        let fromFile = try RecognitionSession(graph: graph(wav, recognizer: ["vocabulary": .string(file.path)]))
        try fromFile.start()
        let expected = await results(fromFile)
        let fromCode = try RecognitionSession(graph: graph(wav))
        try fromCode.addVocabulary(words.map { VocabularyEntry($0) })
        try fromCode.start()
        let got = await results(fromCode)
        #expect(expected.first?.hasPrefix(Self.sentence) == true, "\(expected)")
        #expect(got == expected)
    }

    /// Added once the first final is in, paced in real time so most of the 4 s pause is still ahead:
    /// the second saying of the same sentence has the word, the first not.
    @Test(.flite) func wordsAddedBetweenUtterancesAreHeardFromTheNext() async throws {
        let wav = try #require(Flite.speech([Self.sentence, Self.sentence], pause: 4))
        let s = try RecognitionSession(graph: graph(wav), options: .init(blockFrames: 1024, realtime: true))
        let failure = Locked<(any Error)?>(nil), seen = Locked(0)
        s.onEvent { e in
            guard case .final = e, seen.withLock({ $0 += 1; return $0 }) == 1 else { return }
            do { try s.addVocabulary(Self.entries) } catch { failure.withLock { $0 = error } }
        }
        // Asked for before the start: with a handler installed, the stream buffers only from then.
        let events = s.events
        let collected = Task { await finals(events) }
        try s.start()
        let (texts, warnings) = await collected.value
        #expect(failure.withLock { $0 } == nil)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(texts.count == 2, "\(texts)")
        #expect(texts.first.map { !$0.contains("shawarma") } == true, "the first, before the words: \(texts)")
        #expect(texts.last == Self.sentence, "the second, after: \(texts)")
    }

    @Test(.flite) func badEntriesAreRefusedNamingTheEntry() throws {
        let wav = try #require(Flite.speech("hello"))
        let s = try RecognitionSession(graph: graph(wav))
        for (entries, words) in [([VocabularyEntry("good"), VocabularyEntry("bad word!")], ["entry 2", "\"word!\""]),
                                 ([VocabularyEntry("ramen", pronunciation: ["R", "AA", "M", "EN"])], ["entry 1", "phones the model lacks: EN"]),
                                 ([VocabularyEntry("two words", pronunciation: ["T", "UW"])], ["one word, not a phrase"]),
                                 ([VocabularyEntry("  ")], ["entry 1", "no word"])] {
            do {
                try s.addVocabulary(entries)
                Issue.record("\(entries) was taken")
            } catch let e as EngineError {
                for w in words + ["vocabulary"] { #expect("\(e)".contains(w), "\(w) in: \(e)") }
                #expect(e.node == "asr" && e.parameter == "vocabulary")
            } catch {
                Issue.record("not an EngineError: \(error)")
            }
        }
    }

    @Test(.flite) func aGraphWithoutARecognizerRefuses() throws {
        let wav = try #require(Flite.speech("hello"))
        var g = GraphDescription(name: "no-recognizer")
        g.addNode("src", type: "file-source", ["path": .string(wav.path)])
        g.addNode("vad", type: "vad")
        g.addNode("out", type: "null-sink")
        g.connect("src", to: "vad")
        g.connect("vad", to: "out")
        let s = try RecognitionSession(graph: g)
        do {
            try s.addVocabulary([VocabularyEntry("shawarma")])
            Issue.record("taken without a recognizer")
        } catch let e as EngineError {
            #expect(e.message.contains("no recognizer") && e.parameter == "vocabulary", "\(e)")
        } catch {
            Issue.record("not an EngineError: \(error)")
        }
    }

    @Test(.flite) func aGrammarTakesItsWordsFromTheFile() throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let gram = FileManager.default.temporaryDirectory.appendingPathComponent("words-\(UUID().uuidString).gram")
        try "#JSGF V1.0;\ngrammar g;\npublic <c> = go forward ten meters;\n".write(to: gram, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: gram) }
        let s = try RecognitionSession(graph: graph(wav, recognizer: ["grammar": .string(gram.path)]))
        #expect(throws: EngineError.self) { try s.addVocabulary([VocabularyEntry("shawarma")]) }
    }
}
