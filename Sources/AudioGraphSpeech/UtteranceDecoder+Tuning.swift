import AudioGraphDSP

/// The utterance decoder's tuning constants, in one place. Each says what it does; how it
/// was chosen and on what it was measured is in TUNING.md beside this file.
extension UtteranceDecoder {
    enum Tuning {
        /// How much of the previous utterances' cepstral mean a new utterance starts from
        /// (10 ms frames: 30 s of speech), so the mean follows a change of microphone or room
        /// within minutes.
        static let carriedMeanFrames = 3000
        /// Audio kept before an onset so the first words are decoded from their start (s).
        static let prerollSeconds = 1.0
        /// Audio fed from before the onset (s): soft onsets start before the vad's `t`, and the
        /// decoder wants some silence first. The whole-utterance pass, which measures its
        /// cepstral mean over the utterance, wants more than the live pass, which is
        /// normalised by the carried-over mean.
        static let wholeLeadIn = tuned("wholeLeadIn", 0.3)
        static let liveLeadIn = tuned("liveLeadIn", 0.2)
        /// Silence decoded after a `speech-end`, on top of the vad's hangover, before a part
        /// closes (s): speech the vad confirms within it continues the part.
        static let trailingSeconds = tuned("trailingSeconds", 0.3)
        /// How far back a tentative part started at an utterance end begins, before its
        /// lead-in (s): the vad back-dates an onset over up to this much of the weak frames
        /// before it.
        static let weakLookback = 0.2
        /// How much of an onset's lead-in a tentative part may lack before it is started
        /// again at the onset (as when an utterance ends after the next onset has begun) (s).
        static let leadInSlack = 0.05
        /// How much audio past the look-ahead the preview may hold while it looks for the
        /// first words (samples: 0.3 s).
        static let previewReach = 4800
        /// Samples between looks for the first words of an utterance (20 ms).
        static let firstWordsStep = 320
        /// Samples between updates of the decoder's cepstral mean as it follows an utterance.
        static let meanStep = 512
        /// How much of the stream's voicing is kept for the words' confidences (s): an
        /// utterance's words further back than this count as typically voiced.
        static let voicingSeconds = 120.0
    }
}
