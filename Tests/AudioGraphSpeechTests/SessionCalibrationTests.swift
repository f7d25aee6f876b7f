import AudioGraphResults
@testable import AudioGraphSpeech
import Testing

/// A session's confidences follow its own share of right words: a session whose words the
/// model doubts comes down, one it trusts goes up, the first final is the model's own, and
/// the order of words within a session is kept.
@Suite struct SessionCalibrationTests {
    /// A word whose model inputs are `typical` changed by `change`, its confidence the model's.
    static func word(_ change: (inout ConfidenceModel.Measures) -> Void = { _ in }) -> RecognitionResult.Word {
        var m = ConfidenceModelTests.typical
        change(&m)
        let e = ConfidenceModel.evidence(m)
        var w = RecognitionResult.Word(word: "word", start: 0, end: 0.25, confidence: ConfidenceModel.probability(e))
        w.evidence = e
        return w
    }
    static let doubtful = word { $0.posterior = 0.05; $0.lighterAgreement = 0; $0.heavierAgreement = 0; $0.neighbourHeavierAgreement = 0 }
    static let sure = word { $0.posterior = 1; $0.lighterAgreement = 1; $0.heavierAgreement = 1; $0.neighbourHeavierAgreement = 1 }

    static func final(_ words: [RecognitionResult.Word]) -> RecognitionResult {
        RecognitionResult(utterance: 1, text: words.map(\.word).joined(separator: " "), start: 0, end: 1,
                          confidence: RecognitionResult.meanConfidence(words), alternatives: [], words: words)
    }

    @Test func theFirstFinalKeepsTheModelsConfidences() {
        var c = SessionCalibration()
        let r = Self.final([Self.doubtful, Self.sure, Self.word()])
        #expect(c.calibrate(r) == r)
    }

    @Test func aSessionOfDoubtfulWordsLowersWhatFollows() throws {
        var c = SessionCalibration()
        for _ in 0..<20 { _ = c.calibrate(Self.final([Self.doubtful, Self.doubtful, Self.word()])) }
        #expect(c.shareRight < ConfidenceModel.fittedShareRight - 0.1, "\(c.shareRight)")
        let next = c.calibrate(Self.final([Self.word(), Self.sure]))
        #expect(next.words[0].confidence < Self.word().confidence)
        #expect(next.words[1].confidence < Self.sure.confidence)
        // The order within the session holds, and the result's confidence is its words' mean.
        #expect(next.words[0].confidence < next.words[1].confidence)
        #expect(next.confidence == RecognitionResult.meanConfidence(next.words))
        // What a final carries as evidence is unchanged: the model's inputs.
        #expect(next.words[1].evidence == Self.sure.evidence)
    }

    @Test func aSessionOfSureWordsRaisesWhatFollows() {
        var c = SessionCalibration()
        for _ in 0..<20 { _ = c.calibrate(Self.final([Self.sure, Self.sure, Self.word()])) }
        #expect(c.shareRight > ConfidenceModel.fittedShareRight + 0.1, "\(c.shareRight)")
        #expect(c.calibrate(Self.final([Self.word()])).words[0].confidence > Self.word().confidence)
    }

    /// A short session moves little: the estimate counts `pseudoWords` words at the fitted share.
    @Test func oneDoubtfulWordMovesTheEstimateLittle() {
        var c = SessionCalibration()
        _ = c.calibrate(Self.final([Self.doubtful]))
        #expect(c.shareRight < ConfidenceModel.fittedShareRight)
        #expect(c.shareRight > ConfidenceModel.fittedShareRight - 0.05, "\(c.shareRight)")
    }

    @Test func wordsNotFromTheDecoderAreLeftAsTheyAre() {
        var c = SessionCalibration()
        for _ in 0..<10 { _ = c.calibrate(Self.final([Self.doubtful])) }
        let plain = RecognitionResult(utterance: 2, text: "go", start: 0, end: 0.25, confidence: 0.5, alternatives: [],
                                      words: [.init(word: "go", start: 0, end: 0.25, confidence: 0.5)])
        #expect(c.calibrate(plain) == plain)
    }

    @Test func movingIsTheOddsOfTheTwoSharesAndKeepsTheEnds() {
        #expect(SessionCalibration.moved(0.3, from: 0.6, to: 0.6) == 0.3)
        #expect(SessionCalibration.moved(0, from: 0.6, to: 0.3) == 0)
        #expect(SessionCalibration.moved(1, from: 0.6, to: 0.3) == 1)
        // Odds 1 at the fitted share of 0.5 become the session's odds.
        #expect(abs(SessionCalibration.moved(0.5, from: 0.5, to: 0.8) - 0.8) < 1e-12)
        #expect(SessionCalibration.moved(0.7, from: 0.6, to: 0.4) < 0.7)
    }
}
