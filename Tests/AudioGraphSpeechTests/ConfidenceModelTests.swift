import AudioGraphCore
import AudioGraphResults
@testable import AudioGraphSpeech
import Testing

/// The fitted confidence model says what its measures mean: more agreement, a higher
/// posterior, a better acoustic fit each make a word more likely right.
@Suite struct ConfidenceModelTests {
    static let typical = ConfidenceModel.Measures(
        posterior: 0.6, lighterAgreement: 0.6, heavierAgreement: 0.8, neighbourHeavierAgreement: 0.8,
        acousticPerFrame: 0, languageModel: -0.03, backoff: 3, frames: 25, phones: 3)

    func p(_ change: (inout ConfidenceModel.Measures) -> Void) -> Double {
        var m = Self.typical
        change(&m)
        return ConfidenceModel.probability(ConfidenceModel.evidence(m))
    }

    @Test func oneWeightPerInput() {
        #expect(ConfidenceModel.weights.count == ConfidenceModel.names.count)
        #expect(ConfidenceModel.evidence(Self.typical).features.count == ConfidenceModel.names.count)
    }

    @Test func moreEvidenceMeansMoreLikelyRight() {
        let base = p { _ in }
        #expect(base > 0 && base < 1)
        #expect(p { $0.posterior = 1 } > base)
        #expect(p { $0.lighterAgreement = 1 } > base)
        #expect(p { $0.heavierAgreement = 1 } > base)
        #expect(p { $0.neighbourHeavierAgreement = 1 } > base)
        #expect(p { $0.acousticPerFrame = 1 } > base)
        // A word every reading drops, with a poor posterior, is more likely wrong than right.
        #expect(p { $0.posterior = 0.05; $0.lighterAgreement = 0; $0.heavierAgreement = 0; $0.neighbourHeavierAgreement = 0 } < 0.5)
        // One every reading keeps, with a posterior of 1, is very likely right.
        #expect(p { $0.posterior = 1; $0.lighterAgreement = 1; $0.heavierAgreement = 1; $0.neighbourHeavierAgreement = 1 } > 0.85)
    }

    /// A result's voicing, set once it is whole, moves every word's confidence and its own:
    /// words heard in a whisper or a creak are more often wrong.
    @Test func aLessVoicedResultIsLessLikelyRight() {
        let e = ConfidenceModel.evidence(Self.typical)
        var w = RecognitionResult.Word(word: "go", start: 0, end: 0.25, confidence: ConfidenceModel.probability(e))
        w.evidence = e
        let r = RecognitionResult(utterance: 1, text: "go go", start: 0, end: 0.5, confidence: w.confidence,
                                  alternatives: [], words: [w, w])
        let modal = ConfidenceModel.voiced(r, 0.95), whispered = ConfidenceModel.voiced(r, 0.6)
        #expect(whispered.words[0].confidence < modal.words[0].confidence)
        #expect(whispered.confidence < modal.confidence)
        #expect(modal.words[1].evidence?.features[ConfidenceModel.resultVoicingInput] == 0.95)
        #expect(ConfidenceModel.names[ConfidenceModel.resultVoicingInput] == "result-voicing")
        // A word not from the decoder keeps its confidence.
        let plain = RecognitionResult(utterance: 1, text: "go", start: 0, end: 0.25, confidence: 0.5,
                                      alternatives: [], words: [.init(word: "go", start: 0, end: 0.25, confidence: 0.5)])
        #expect(ConfidenceModel.voiced(plain, 0.6).words[0].confidence == 0.5)
    }
}
