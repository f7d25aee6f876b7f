import AudioGraphCore
import Foundation

/// Turns what the decoder knows about a word into the probability that the word is right.
///
/// A logistic regression over measures that predict errors: the word's posterior in the
/// lattice, whether the lattice's best reading keeps the word when the language model counts
/// for less or for more (and keeps its neighbours when it counts for more), how well its frames fit the acoustic model beside the rest of the
/// utterance, its language-model score and back-off, its length, and how voiced its whole
/// result sounds (`VoicingTrack`: the acoustic model was trained on modal read speech, and
/// words recognised in whispered, creaky or breathy speech are wrong more often than the
/// decoder's own scores say). The result's voicing is known once the result is whole, so
/// `voiced` sets it, and the confidences it moves, after the utterance's last part. The weights are fitted
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

    /// A result's voicing until `voiced` sets it, and where its audio is no longer held: a
    /// typical result's.
    static let typicalVoicing = 0.85

    /// Names of the model's inputs, in order.
    package static let names = ["log-posterior", "lighter-lm-agreement", "heavier-lm-agreement",
                        "acoustic-per-frame", "language-model", "unigram", "log-frames", "phones",
                                "neighbour-heavier-lm-agreement", "result-voicing"]
    /// The result's voicing's place among the inputs.
    static let resultVoicingInput = 9

    /// The model's inputs for a word, the result's voicing provisionally a typical one (`voiced`
    /// sets it).
    static func evidence(_ m: Measures) -> WordEvidence {
        let inputs = [log(max(m.posterior, 1e-4)), m.lighterAgreement, m.heavierAgreement,
                      max(-5, min(5, m.acousticPerFrame)), max(-0.1, min(0, m.languageModel)) * 10,
                      m.backoff == 1 ? 1 : 0, log(Double(max(m.frames, 1))), Double(min(m.phones, 12)),
                      m.neighbourHeavierAgreement, typicalVoicing]
        return WordEvidence(features: inputs)
    }

    /// `result` with its words' result-voicing input set to `voicing` (the mean voicing of the
    /// louder frames of all its words), and their confidences and its own from it.
    static func voiced(_ result: RecognitionResult, _ voicing: Double) -> RecognitionResult {
        var r = result
        for i in r.words.indices {
            guard var e = r.words[i].evidence, e.features.count > resultVoicingInput else { continue }
            e.features[resultVoicingInput] = voicing
            r.words[i].evidence = e
            r.words[i].confidence = probability(e)
        }
        r.confidence = RecognitionResult.meanConfidence(r.words)
        return r
    }

    /// The probability that a word with this evidence is right.
    static func probability(_ e: WordEvidence) -> Double {
        var z = intercept
        for (x, w) in zip(e.features, weights) { z += x * w }
        return 1 / (1 + exp(-z))
    }

    // Fitted by `Tools/confidence fit` (begin)
    static let intercept = -1.177445
    static let weights: [Double] = [0.056846, 1.405040, 1.586902, 0.338953, 1.482949, -0.119272, -0.828531, 0.399508, 0.895008, 1.471796]
    /// The share of the fitted words that were right (``SessionCalibration`` starts there).
    static let fittedShareRight = 0.597477
    // Fitted by `Tools/confidence fit` (end)
}
