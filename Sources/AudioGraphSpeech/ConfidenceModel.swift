import AudioGraphCore
import Foundation

/// Turns what the decoder knows about a word into the probability that the word is right.
///
/// A logistic regression over measures that predict errors: the word's posterior in the
/// lattice, whether the lattice's best reading keeps the word when the language model counts
/// for less or for more (and keeps its neighbours when it counts for more), how well its frames fit the acoustic model beside the rest of the
/// utterance, its language-model score and back-off, and its length. The weights are fitted
/// offline by `Tools/confidence fit` on words of the dictation graph's results aligned to
/// reference transcripts; `Tools/confidence report` measures them on files the weights were
/// not fitted on (README, "Confidences").
package enum ConfidenceModel {
    /// The raw measures of one word.
    struct Measures {
        /// Share of the lattice's paths with the same word at the word's middle frame.
        var posterior: Double
        /// Share of the readings with a lighter language model that keep the word.
        var lighterAgreement: Double
        /// Share of the readings with a heavier language model that keep the word.
        var heavierAgreement: Double
        /// The lower `heavierAgreement` of the words just before and after it in the same
        /// result (1 at either end): errors come in runs, so an unstable neighbour marks a
        /// stretch the language model may have talked the decoder into.
        var neighbourHeavierAgreement: Double
        /// Acoustic log-likelihood per frame minus the utterance's mean per frame (scaled nats).
        var acousticPerFrame: Double
        /// Language-model score (scaled nats, weighted, with insertion penalty).
        var languageModel: Double
        /// The n-gram order the language model used (1: unigram back-off; 0 without a model).
        var backoff: Int
        /// 10 ms frames the word lasts.
        var frames: Int
        /// Phones in its pronunciation.
        var phones: Int
    }

    /// Names of the model's inputs, in order.
    package static let names = ["log-posterior", "lighter-lm-agreement", "heavier-lm-agreement",
                        "acoustic-per-frame", "language-model", "unigram", "log-frames", "phones",
                                "neighbour-heavier-lm-agreement"]

    /// The model's inputs for a word.
    static func evidence(_ m: Measures) -> WordEvidence {
        let inputs = [log(max(m.posterior, 1e-4)), m.lighterAgreement, m.heavierAgreement,
                      max(-5, min(5, m.acousticPerFrame)), max(-0.1, min(0, m.languageModel)) * 10,
                      m.backoff == 1 ? 1 : 0, log(Double(max(m.frames, 1))), Double(min(m.phones, 12)),
                      m.neighbourHeavierAgreement]
        return WordEvidence(features: inputs)
    }

    /// The probability that a word with this evidence is right.
    static func probability(_ e: WordEvidence) -> Double {
        var z = intercept
        for (x, w) in zip(e.features, weights) { z += x * w }
        return 1 / (1 + exp(-z))
    }

    // Fitted by `Tools/confidence fit` (begin)
    static let intercept = 0.626923
    static let weights: [Double] = [0.084211, 1.619837, 2.513280, 0.351349, 0.849399, -0.218197, -0.958999, 0.112121, 1.630579]
    // Fitted by `Tools/confidence fit` (end)
}
