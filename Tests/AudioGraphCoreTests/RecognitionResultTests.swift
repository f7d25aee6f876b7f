import AudioGraphCore
import Testing

/// An utterance decoded in parts reports one result.
@Suite struct RecognitionResultTests {
    func part(_ text: String, _ words: [(String, Double)], confidence: Double, alternatives: [(String, Int)]) -> RecognitionResult {
        RecognitionResult(utterance: 2, text: text, start: words.first?.1 ?? 0, end: (words.last?.1 ?? 0) + 0.3,
                          confidence: confidence, alternatives: alternatives.map { .init(text: $0.0, score: $0.1) },
                          words: words.map { .init(word: $0.0, start: $0.1, end: $0.1 + 0.2, confidence: confidence) })
    }

    @Test func partsJoinInOrder() {
        let a = part("go forward", [("go", 1.0), ("forward", 1.3)], confidence: 0.8, alternatives: [("go forward", -100), ("go for word", -120)])
        let b = part("ten meters", [("ten", 2.5), ("meters", 2.8)], confidence: 0.5,
                     alternatives: [("ten meters", -50), ("tin meters", -60)])
        let r = RecognitionResult(joining: [a, b], start: 0.9, end: 3.2)
        #expect(r.text == "go forward ten meters")
        #expect(r.utterance == 2 && r.start == 0.9 && r.end == 3.2)
        #expect(r.words.map(\.word) == ["go", "forward", "ten", "meters"])
        // The expected fraction of right words: (0.8 + 0.8 + 0.5 + 0.5) / 4.
        #expect(abs(r.confidence - 0.65) < 1e-12)
        #expect(r.alternatives == [.init(text: "go forward ten meters", score: -150),
                                   .init(text: "go forward tin meters", score: -160)])
    }

    @Test func emptyPartsLeaveNoGaps() {
        let silent = part("", [], confidence: 1, alternatives: [("", -10)])
        let b = part("hello", [("hello", 4.0)], confidence: 0.7, alternatives: [("hello", -40)])
        #expect(RecognitionResult(joining: [silent, b], start: 1, end: 5).text == "hello")
        #expect(RecognitionResult(joining: [b, silent], start: 1, end: 5).text == "hello")
        #expect(RecognitionResult(joining: [b], start: 1, end: 5).alternatives == b.alternatives)
        // A part without words weighs nothing in the confidence; no words at all is 0.
        #expect(RecognitionResult(joining: [silent, b], start: 1, end: 5).confidence == 0.7)
        #expect(RecognitionResult(joining: [silent], start: 1, end: 5).confidence == 0)
    }
}
