/// The final result of one utterance (SFSpeechRecognitionResult's isFinal result).
public struct RecognitionResult: Sendable, Equatable {
    /// One timed word of the best hypothesis.
    public struct Word: Sendable, Equatable {
        public var word: String
        /// Stream times in seconds.
        public var start: Double
        public var end: Double
        /// Posterior probability of the word, 0...1.
        public var confidence: Double
        public init(word: String, start: Double, end: Double, confidence: Double) {
            self.word = word
            self.start = start
            self.end = end
            self.confidence = confidence
        }
    }

    /// Another reading of the utterance from the decoder's n-best list.
    public struct Alternative: Sendable, Equatable {
        public var text: String
        /// The decoder's path score (log domain; higher is better).
        public var score: Int
        public init(text: String, score: Int) {
            self.text = text
            self.score = score
        }
    }

    /// Utterance number, from 1.
    public var utterance: Int
    /// Best hypothesis without fillers, noise tokens or pronunciation variants.
    public var text: String
    /// Stream times of the utterance in seconds.
    public var start: Double
    public var end: Double
    /// Posterior probability of the best hypothesis, 0...1.
    public var confidence: Double
    public var alternatives: [Alternative]
    public var words: [Word]

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
}
