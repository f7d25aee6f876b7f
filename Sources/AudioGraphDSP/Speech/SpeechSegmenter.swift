import Foundation

/// Where speech starts and ends, from the frames' evidence: the vad's decisions.
///
/// The evidence is smoothed into a score and compared with two thresholds set by the
/// sensitivity (hysteresis); speech must last `minSpeechFrames` to start (clicks and taps do
/// not), and ends only after `hangoverFrames` of non-speech. Onsets are back-dated over the
/// weaker frames that lead into them, offsets include a word's decaying tail. Runs of weak
/// frames outside speech are announced as possible speech, then confirmed by an onset or
/// dropped. Each decision is handed to `decide` once, with the time it refers to and the time
/// it was made. Constants: `VoiceActivityDetector.Tuning`. Real-time safe.
struct SpeechSegmenter {
    typealias Tuning = VoiceActivityDetector.Tuning

    /// A decision about the stream, made at `decided` (stream seconds).
    enum Decision {
        /// Speech started at `t`.
        case start(t: Double, decided: Double)
        /// Speech ended at `t`.
        case end(t: Double, decided: Double)
        /// Sound that may be speech began at `t`; its outcome is known by `resolvesBy`.
        case possible(t: Double, decided: Double, resolvesBy: Double)
        /// The possible speech last announced was not speech (its run of weak frames ended at `t`).
        case dropped(t: Double, decided: Double)
    }

    let onThreshold: Float
    let offThreshold: Float
    /// Evidence a frame needs to count as the last of a word (its tail may follow).
    let tailThreshold: Float
    let minSpeechFrames: Int
    let hangoverFrames: Int
    /// Analysis frame length (s): frames end on hop boundaries.
    let frameSeconds: Double

    private(set) var speaking = false
    /// The smoothed evidence.
    private(set) var score: Float = 0
    private var run = 0                    // consecutive frames on the other side of the threshold
    private var voicedInRun = 0            // voiced frames in the onset run
    private var plainVoicedFrames: UInt64 = 0  // the last 64 frames' plain voicing, newest in bit 0
    private var clearInRun = false         // a frame of the onset run was clear of the room
    private var runStart: Int64 = 0
    private var lastRawSpeechFrame: Int64 = 0
    private var lastTailFrame: Int64 = 0   // end of the sound that trails the last speech frame
    private var weakRunStart: Int64 = 0    // first frame of the current run of weak evidence
    private var lastWeakFrame: Int64 = 0
    private var possibleSpeech = false     // a `possible` decision awaits its outcome

    init(sensitivity: Double, minSpeechFrames: Int, hangoverFrames: Int, frameSeconds: Double) {
        onThreshold = Float(Tuning.onBase - Tuning.onSlope * sensitivity)
        offThreshold = Tuning.offFraction * onThreshold
        tailThreshold = onThreshold + Tuning.tailMargin
        self.minSpeechFrames = minSpeechFrames
        self.hangoverFrames = hangoverFrames
        self.frameSeconds = frameSeconds
    }

    mutating func reset() {
        speaking = false
        score = 0
        run = 0
        voicedInRun = 0
        plainVoicedFrames = 0
        clearInRun = false
        runStart = 0
        lastRawSpeechFrame = 0
        lastTailFrame = 0
        weakRunStart = 0
        lastWeakFrame = 0
        possibleSpeech = false
    }

    /// The last `plainVoicedWindow` frames of `plainVoicedFrames`.
    static let windowMask: UInt64 = (1 << UInt64(Tuning.plainVoicedWindow)) - 1

    /// Stream time (s) of the end of frame `n` (frames end on hop boundaries).
    func frameEnd(_ n: Int64) -> Double { Double(n) * Tuning.hop + frameSeconds - Tuning.hop }

    /// Stream time of an onset first heard in frame `n` (its centre, within its first hop).
    func onsetTime(_ n: Int64) -> Double { max(0, frameEnd(n) - frameSeconds + Tuning.hop / 2) }

    /// Smooths frame's `evidence` into the score; the speech probability it gives.
    mutating func score(_ evidence: Float) -> Float {
        score = Tuning.scoreMemory * score + Tuning.scoreNew * evidence
        return 1 / (1 + exp(-Tuning.probabilitySlope * (score - onThreshold)))
    }

    /// Decides on frame `frame` (after `score`), with its `evidence`, its `signal` (evidence
    /// before the background gate), its 4-8 kHz ratio `high`, whether it is `voiced`
    /// (periodic), `plainVoiced` (periodic by the plain measure; not measured inside speech,
    /// whose frames count as voiced) and `clear` (where a voice's plain periodicity can be
    /// heard), at stream time `now`.
    mutating func decide(frame: Int64, evidence: Float, signal: Float, high: Float, voiced: Bool,
                         plainVoiced: Bool, clear: Bool, now: Double,
                         _ decide: (Decision) -> Void) {
        plainVoicedFrames = plainVoicedFrames << 1 | (speaking || plainVoiced ? 1 : 0)
        // A word's tail: after the last frame with speech evidence, the sound that stays
        // above the noise without a break, though the background gate has faded it out.
        if evidence >= tailThreshold {
            lastRawSpeechFrame = frame
            lastTailFrame = frame
        } else if signal >= offThreshold && lastTailFrame == frame - 1 && frame - lastRawSpeechFrame <= Tuning.tailFrames {
            lastTailFrame = frame
        }
        // Frames that may lead into an onset: some speech evidence, or a fricative's hiss.
        // Outside speech, a run of them is announced as possible speech.
        if evidence >= offThreshold || high > Tuning.fricativeRatio {
            if lastWeakFrame != frame - 1 {
                weakRunStart = frame
                if !speaking { announce(from: weakRunStart, now: now, decide) }
            }
            lastWeakFrame = frame
        } else if possibleSpeech {
            possibleSpeech = false
            decide(.dropped(t: frameEnd(frame), decided: now))
        }
        if !speaking {
            // Onset: raw evidence above the threshold for min-speech in a row (a click's
            // short burst is not stretched by the smoothing), confirmed by the smoothed score.
            if evidence > onThreshold && (run + 1 < minSpeechFrames || score > onThreshold) {
                if run == 0 { runStart = frame; voicedInRun = 0; clearInRun = false }
                run += 1
                if voiced { voicedInRun += 1 }
                if clear { clearInRun = true }
                // Speech has voice within its first syllable: a breath, a keyboard, a fan's
                // gust or a clatter, however loud, has none and starts nothing.
                // Clear of the room, a voice is periodic by the plain measure too.
                let voiceHeard = !clearInRun || (plainVoicedFrames & Self.windowMask).nonzeroBitCount >= Tuning.plainVoicedToStart
                if run >= minSpeechFrames && voicedInRun >= Tuning.voicedFramesToStart && voiceHeard {
                    speaking = true
                    possibleSpeech = false
                    run = 0
                    // The frames that confirmed the onset are speech, though none passed the
                    // tail's threshold: else its end would be the last word's, before its start.
                    lastRawSpeechFrame = max(lastRawSpeechFrame, frame)
                    lastTailFrame = max(lastTailFrame, frame)
                    // Back-dated over the weaker frames that lead into it (a soft /θ/ or /f/
                    // before the vowel), at most `leadInFrames`.
                    let first = max(min(weakRunStart, runStart), runStart - Tuning.leadInFrames)
                    decide(.start(t: onsetTime(first), decided: now))
                }
            } else {
                run = 0
            }
        } else if score >= offThreshold {
            run = 0
        } else {
            run += 1
            if run >= hangoverFrames {
                end(now: now, decide)
                // Noise that keeps the weak evidence going through the pause starts no run
                // of its own, so without this the next onset would come unannounced.
                if lastWeakFrame == frame { announce(from: frame, now: now, decide) }
            }
        }
    }

    /// A frame that is not measured (it lies in what the graph itself plays): no evidence,
    /// so speech in progress ends after the hangover and none starts.
    mutating func skip(frame: Int64, now: Double, _ decide: (Decision) -> Void) {
        score *= Tuning.scoreMemory
        if possibleSpeech {
            possibleSpeech = false
            decide(.dropped(t: frameEnd(frame), decided: now))
        }
        if speaking {
            run += 1
            if run >= hangoverFrames { end(now: now, decide) }
        } else {
            run = 0
        }
    }

    /// Speech ends with the end of its tail (frame ends, not centres), decided `now`.
    mutating func end(now: Double, _ decide: (Decision) -> Void) {
        guard speaking else { return }
        speaking = false
        run = 0
        decide(.end(t: frameEnd(lastTailFrame), decided: now))
    }

    /// Announces weak evidence from frame `first` on as possible speech: confirmed by the
    /// onset it leads into, dropped when the run of weak frames ends first.
    private mutating func announce(from first: Int64, now: Double, _ decide: (Decision) -> Void) {
        possibleSpeech = true
        let by = frameEnd(first + Tuning.leadInFrames + Int64(minSpeechFrames))
        decide(.possible(t: onsetTime(first), decided: now, resolvesBy: by))
    }
}
