import AudioGraphCore
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
}
