/// The final result of one utterance (SFSpeechRecognitionResult's isFinal result).
public struct RecognitionResult: Sendable, Equatable {
    /// One timed word of the best hypothesis.
    public struct Word: Sendable, Equatable {
        /// The word, without pronunciation variant.
        public var word: String
        /// Where the word starts, stream time in seconds.
        public var start: Double
        /// Where the word ends, stream time in seconds.
        public var end: Double
        /// Probability that the word is right, 0...1, calibrated (see `ConfidenceModel`).
        public var confidence: Double
        /// The decoder's evidence behind `confidence` (nil for words not from the decoder).
        package var evidence: WordEvidence?
        /// A word between `start` and `end` with its confidence.
        public init(word: String, start: Double, end: Double, confidence: Double) {
            self.word = word
            self.start = start
            self.end = end
            self.confidence = confidence
        }
    }

    /// Another reading of the utterance from the decoder's n-best list.
    public struct Alternative: Sendable, Equatable {
        /// The words of this reading.
        public var text: String
        /// The decoder's path score (log domain; higher is better).
        public var score: Int
        /// A reading with its path score.
        public init(text: String, score: Int) {
            self.text = text
            self.score = score
        }
    }

    /// Utterance number, from 1.
    public var utterance: Int
    /// Best hypothesis without fillers, noise tokens or pronunciation variants.
    public var text: String
    /// Where the utterance starts, stream time in seconds.
    public var start: Double
    /// Where the utterance ends, stream time in seconds.
    public var end: Double
    /// The expected fraction of the text's words that are right, 0...1: the mean of the
    /// words' calibrated confidences (0 when there are no words).
    public var confidence: Double
    /// The n-best readings, the best (`text`) first.
    public var alternatives: [Alternative]
    /// The best hypothesis's words with their times and confidences.
    public var words: [Word]

    /// A result with every field given.
    public init(utterance: Int, text: String, start: Double, end: Double, confidence: Double,
                alternatives: [Alternative], words: [Word]) {
        self.utterance = utterance
        self.text = text
        self.start = start
        self.end = end
        self.confidence = confidence
        self.alternatives = alternatives
        self.words = words
    }

    /// Texts of consecutive stretches of speech as one text: the non-empty ones, space-separated
    /// (a part that heard nothing adds no space).
    public static func joinedText(_ texts: [String]) -> String {
        texts.filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// One result from the results of consecutive parts of an utterance (decoded apart):
    /// texts and words in order, the confidence over all their words, and the last part's alternatives
    /// after the earlier parts' best text.
    public init(joining parts: [RecognitionResult], start: Double, end: Double) {
        let earlier = parts.dropLast()
        let prefix = Self.joinedText(earlier.map(\.text))
        func joined(_ last: String) -> String { Self.joinedText([prefix, last]) }
        let prefixScore = earlier.reduce(0) { $0 + ($1.alternatives.first?.score ?? 0) }
        let last = parts.last
        self.init(utterance: last?.utterance ?? 0, text: joined(last?.text ?? ""), start: start, end: end,
                  confidence: Self.meanConfidence(parts.flatMap(\.words)),
                  alternatives: (last?.alternatives ?? []).map { .init(text: joined($0.text), score: prefixScore + $0.score) },
                  words: parts.flatMap(\.words))
    }

    /// The expected fraction of right words among `words`: the mean of their confidences,
    /// 0 when there are none.
    public static func meanConfidence(_ words: [Word]) -> Double {
        words.isEmpty ? 0 : words.reduce(0) { $0 + $1.confidence } / Double(words.count)
    }
}
