/// The vad's tuning constants, in one place. Each says what it does; how it was chosen and
/// on what it was measured is in TUNING.md beside this file.
extension VoiceActivityDetector {
    enum Tuning {
        /// Seconds between frames.
        static let hop = 0.01

        // MARK: evidence (SpeechEvidence)

        /// Harmonicity above this adds to the signal (sound above the noise, which extends a
        /// word's tail), weighted by `harmonicityWeight` and by how far the likelihood ratio
        /// says there is signal to be periodic.
        static let harmonicityFloor: Float = 0.3
        static let harmonicityWeight: Float = 1.0
        /// Frames below this level (dBFS) carry no signal (digital silence, a muted input).
        static let silenceLevel: Float = -70
        /// Frames below this level (dBFS: zeros, or a bit or two of 16-bit dither) are not
        /// measured at all: they teach the noise estimate nothing about the room.
        static let digitalSilenceLevel: Float = -96
        /// The talker's loud level rises this much per frame above it and falls this much per
        /// frame below it (dB): it tracks about the 98th percentile of frame levels.
        static let loudRise: Float = 1
        static let loudFall: Float = 0.015
        /// Over the stream's first this many frames the loud level, set by the first frame,
        /// falls as fast as it rises: a first frame that is a click (a microphone opening with
        /// a pop) would otherwise hold it 30 dB over a quiet talker for 20 s, and fade every
        /// word of theirs out as background.
        static let youngLoudFrames: Int64 = 50
        /// Frames further below the background line fade out of the evidence over this many dB.
        static let backgroundFade: Float = 6
        /// A word's decaying end, this many frames after its last loud frame, may fall this
        /// many dB further below the background line before it fades.
        static let decayFrames: Int64 = 25
        static let decaySlack: Float = 8
        /// The evidence is `modelCentre + modelScale * ` the model's log-odds (times the
        /// background gate): log-odds 0 meets the start threshold at sensitivity 0.5.
        static let modelCentre: Float = 0.9
        static let modelScale: Float = 0.25
        /// A frame whose signal (sound above the noise) is below this is not speech, whatever
        /// the model's memory of the frames before says: a click or a word's abrupt end does
        /// not linger.
        static let presence: Float = tuned("presence", 0.1 as Float)

        // MARK: segmentation (SpeechSegmenter)

        /// The smoothed score keeps `scoreMemory` of itself each frame and adds `scoreNew` of
        /// the frame's evidence.
        static let scoreMemory: Float = 0.6
        static let scoreNew: Float = 0.4
        /// The start threshold at sensitivity s is `onBase - onSlope * s`; speech ends below
        /// `offFraction` of it.
        static let onBase = tuned("onBase", 1.3)
        static let onSlope = 0.8
        static let offFraction: Float = tuned("offFraction", 0.6 as Float)
        /// Slope of the logistic that turns the score into a probability around the threshold.
        static let probabilitySlope: Float = 3
        /// A word's last frame has evidence this far above the start threshold (log-odds
        /// about 1.2 at the default sensitivity); sound above the noise after it is its tail.
        static let tailMargin: Float = tuned("tailMargin", 0.3 as Float)
        /// 4-8 kHz power over its noise (6 dB) that lets a frame lead into an onset.
        static let fricativeRatio: Float = 4
        /// While the noise estimate is young (its first `youngNoiseFrames` measured frames),
        /// speech starts only once `voicedFramesToStart` frames of its onset run are voiced:
        /// periodic above 400 Hz (`SpeechFeatures.voicing`) to at least `voicedHarmonicity`,
        /// with at least `voicedLowShare` of the sound above the noise below 1.2 kHz
        /// (`SpeechFeatures.lowShare`: where a voice's first formant lies, and a creak's
        /// resonance does not).
        /// The room's first sounds (a breath, a chair, a keyboard) are measured against a noise
        /// estimate still learning, and a hum's harmonics below 400 Hz would make any of them
        /// look periodic.
        static let youngNoiseFrames = 200
        static let voicedHarmonicity: Float = tuned("voicedHarmonicity", 0.4 as Float)
        static let voicedLowShare: Float = tuned("voicedLowShare", 0.3 as Float)
        static let voicedFramesToStart = 1
        /// The room's quiet level falls at most this much per frame to a quieter frame and
        /// rises this much per frame above it (dB): about the 5th percentile of frame levels.
        static let floorFall: Float = 3
        static let floorRise: Float = 0.02
        /// In a quiet room (its quiet level below `quietRoomLevel` dBFS), or for a sound at
        /// least `clearAboveFloor` dB above the room's quiet level, speech starts only once
        /// `plainVoicedToStart` of the last `plainVoicedWindow` frames were voiced by the plain
        /// measure (``FrameVoicing`` at least `plainVoicedBar`): clear of the room's noise, a
        /// voice is periodic, and a dish's clatter, a click or a breath is not. Speech in loud
        /// steady noise near its own level is left to the model: there the noise dilutes a
        /// voice's plain periodicity too.
        static let quietRoomLevel: Float = tuned("quietRoomLevel", -40 as Float)
        static let clearAboveFloor: Float = tuned("clearAboveFloor", 20 as Float)
        static let plainVoicedBar: Float = tuned("plainVoicedBar", 0.85 as Float)
        static let plainVoicedToStart = Int(tuned("plainVoicedToStart", 4.0))
        static let plainVoicedWindow = 50
        /// Most frames an onset is back-dated over the weaker frames that lead into it.
        static let leadInFrames: Int64 = 20
        /// Most frames a word's decaying tail may extend the offset past the last speech frame.
        static let tailFrames: Int64 = 15
    }
}
