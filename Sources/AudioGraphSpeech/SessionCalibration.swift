import AudioGraphResults

/// Word confidences that follow how often the recognizer is right in this session (issue #40
/// §3): what the session's own words say about its talker, room and vocabulary.
///
/// ``ConfidenceModel`` was fitted where `fittedShareRight` of the words were right (3 in 5). A
/// session where most words are wrong (a talker or a vocabulary the model was not made for)
/// gets the same inputs with more errors behind them, so its confidences are too high; one
/// where nearly all are right gets them too low. The model's own confidences over the
/// session's earlier words estimate the session's share of right words, without labels: two
/// steps of the EM estimate of a changed base rate (Saerens et al., 2002), starting from the
/// fitted share, with `pseudoWords` words at the fitted share in the estimate so a short
/// session moves little. Each new final's confidences are then moved from the fitted base rate
/// to the estimate (their odds times the ratio of the two rates' odds): the order of a final's
/// words does not change, but words of finals far apart in a session may compare differently
/// as the estimate moves. Measured in docs/confidences.md (on for long sessions of one talker;
/// off by default).
///
/// Bounded: the session's confidences are kept as counts in `bins` bins. Not on the audio
/// path: it runs once per final result, on the decoding thread.
struct SessionCalibration {
    /// Words at the fitted share counted into every estimate.
    static let pseudoWords = 30.0
    /// EM steps from the fitted share towards the session's.
    static let steps = 2
    /// Bins of the session's confidences, each counted at its centre.
    static let bins = 100

    /// The share of right words the model was fitted at.
    let fitted: Double
    private var counts: [Int]
    private var total = 0

    init(fittedShareRight: Double = ConfidenceModel.fittedShareRight) {
        fitted = fittedShareRight
        counts = Array(repeating: 0, count: Self.bins)
    }

    /// Confidence `p`, given by a model fitted where `from` of the words were right, for a
    /// session where `to` of them are.
    static func moved(_ p: Double, from: Double, to: Double) -> Double {
        guard to != from else { return p }
        let ratio = (to / (1 - to)) / (from / (1 - from))
        return ratio * p / (ratio * p + (1 - p))
    }

    /// The session's estimated share of right words, from the confidences counted so far.
    var shareRight: Double {
        guard total > 0 else { return fitted }
        var share = fitted
        for _ in 0..<Self.steps {
            var sum = Self.pseudoWords * fitted
            for (b, n) in counts.enumerated() where n > 0 {
                sum += Double(n) * Self.moved((Double(b) + 0.5) / Double(Self.bins), from: fitted, to: share)
            }
            share = sum / (Self.pseudoWords + Double(total))
        }
        return share
    }

    /// `result` with the confidences of its words from the decoder moved to the session's
    /// estimated share of right words (and its own, their mean); their model confidences then
    /// join the estimate for the finals after it.
    mutating func calibrate(_ result: RecognitionResult) -> RecognitionResult {
        let share = shareRight
        var r = result
        for i in r.words.indices {
            guard let e = r.words[i].evidence else { continue }
            let p = ConfidenceModel.probability(e)
            r.words[i].confidence = Self.moved(p, from: fitted, to: share)
            counts[min(Self.bins - 1, max(0, Int(p * Double(Self.bins))))] += 1
            total += 1
        }
        r.confidence = RecognitionResult.meanConfidence(r.words)
        return r
    }
}
