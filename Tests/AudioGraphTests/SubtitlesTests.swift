import AudioGraph
import AudioGraphCore
import Testing

/// Cues from word times: where they break, how they are timed and written.
@Suite struct SubtitlesTests {
    func result(_ words: [(String, Double, Double)], utterance: Int = 1) -> RecognitionResult {
        RecognitionResult(utterance: utterance, text: words.map(\.0).joined(separator: " "),
                          start: words.first?.1 ?? 0, end: words.last?.2 ?? 0, confidence: 0.9, alternatives: [],
                          words: words.map { .init(word: $0.0, start: $0.1, end: $0.2, confidence: 0.9) })
    }

    @Test func aPauseTwoLinesOrSixSecondsStartANewCue() {
        let words = [("go", 0.5, 0.7), ("forward", 0.7, 1.1), ("then", 2.5, 2.7), ("stop", 2.7, 3.0)]
        let s = Subtitles([result(words)])
        #expect(s.cues.map(\.lines) == [["go forward"], ["then stop"]])
        // Many short words: at most two lines of 42 characters, then a new cue.
        let many = (0..<30).map { ("word\($0)", Double($0) * 0.15, Double($0) * 0.15 + 0.1) }
        let wrapped = Subtitles([result(many)])
        #expect(wrapped.cues.count > 1 && wrapped.cues.allSatisfy { $0.lines.count <= 2 && $0.lines.allSatisfy { $0.count <= 42 } })
        #expect(wrapped.cues.flatMap(\.lines).joined(separator: " ") == many.map(\.0).joined(separator: " "))
        // Slow speech: no cue longer than six seconds.
        let slow = (0..<8).map { ("w\($0)", Double($0) * 1.0, Double($0) * 1.0 + 0.6) }
        #expect(Subtitles([result(slow)]).cues.allSatisfy { $0.end - $0.start <= 6 })
    }

    @Test func shortCuesLastLongerWithoutOverlappingTheNext() {
        let s = Subtitles([result([("yes", 1.0, 1.2)]), result([("no", 1.5, 1.7)], utterance: 2), result([("ok", 5, 5.1)], utterance: 3)])
        #expect(s.cues.map(\.start) == [1.0, 1.5, 5])
        #expect(s.cues[0].end == 1.5)             // held, up to the next cue
        #expect(abs(s.cues[2].end - 5.7) < 1e-9)  // held to 0.7 s
    }

    @Test func srtAndWebVTTText() {
        let s = Subtitles([result([("go", 3661.25, 3661.5), ("home", 3661.5, 3662.0)])])
        #expect(s.srt == "1\n01:01:01,250 --> 01:01:02,000\ngo home\n")
        #expect(s.webVTT == "WEBVTT\n\n01:01:01.250 --> 01:01:02.000\ngo home\n")
        #expect(Subtitles([]).srt.isEmpty && Subtitles([]).webVTT == "WEBVTT\n\n")
        // A result without word times (a grammar's, say) gets one cue over its span.
        let bare = RecognitionResult(utterance: 1, text: "turn left", start: 2, end: 3, confidence: 0.5, alternatives: [], words: [])
        #expect(Subtitles([bare]).cues == [.init(start: 2, end: 3, lines: ["turn left"])])
    }
}
