/// What a running engine reports, in stream order (CONTRACT.md's event vocabulary).
public enum EngineEvent: Sendable, Equatable {
    /// The engine's state changed.
    case state(EngineState)
    /// A device stream opened: its name, negotiated format and latency target (seconds).
    case device(node: String, name: String, format: StreamFormat, latency: Double)
    /// A level meter's reading over the last interval, in dBFS.
    case level(node: String, t: Double, rms: Double, peak: Double)
    /// Speech began at stream time `t`; the detector knew at `decided`.
    case speechStart(node: String, t: Double, decided: Double)
    /// Speech ended at stream time `t`; the detector knew at `decided`.
    case speechEnd(node: String, t: Double, decided: Double)
    /// A voice-activity detector's speech probability for the frame ending at `t`.
    case probability(node: String, t: Double, p: Double)
    /// An utterance was closed by an end-of-speech detector.
    case utteranceEnd(node: String, utterance: Int, t: Double, decided: Double)
    /// The current hypothesis of the utterance in progress (changes as speech goes on).
    case partial(node: String, utterance: Int, text: String)
    /// The final result of an utterance.
    case final(node: String, result: RecognitionResult)
    /// Something the user should know that does not stop the run.
    case warning(node: String?, message: String)
    /// A bounded queue was full and `lost` items were dropped.
    case overrun(node: String, lost: Int)
    /// A playback device ran dry `count` times (server-reported) or was given `frames` of
    /// silence because the graph had no audio ready.
    case underrun(node: String, count: Int, frames: Int)
    /// A speech-synth began playing text `id` at stream time `t` (willBeginSpeaking).
    case speakStart(node: String, id: Int, text: String, t: Double)
    /// A speech-synth finished playing text `id`, or it was cancelled (didFinishSpeaking).
    case speakEnd(node: String, id: Int, t: Double, cancelled: Bool)
    /// An event of a kind a node module defines (``CustomEvent``): the conversation's wake
    /// word, assistant states, earcons and barge-ins (`AudioGraphConversation`'s
    /// `ConversationEvent`, read with `event.conversation`).
    case custom(node: String, event: AnyCustomEvent)
    /// The run failed; an `end` with reason `error` follows.
    case error(EngineError)
    /// The run is over; a session adds a suggestion when it can tell why nothing useful
    /// was heard (input silent, clipping, speech buried in noise, ...).
    case end(EndReason, suggestion: String? = nil)
}

/// Where an engine is in its life.
public enum EngineState: String, Sendable {
    /// Prepared, not started.
    case idle
    /// Running: audio flows.
    case listening
    /// Paused: the render thread holds.
    case paused
    /// Stopping: sources have ended, the graph drains.
    case stopping
    /// The run is over.
    case ended
}

/// Why a run ended (CONTRACT.md).
public enum EndReason: String, Sendable {
    /// Every source reached its end.
    case endOfInput = "end-of-input"
    /// An end-of-speech detector ended the session.
    case endOfSpeech = "end-of-speech"
    /// Nobody spoke before the no-speech timeout.
    case noSpeech = "no-speech"
    /// `stop()`: audio ended, pending audio processed.
    case stopped
    /// `cancel()`: pending audio discarded.
    case cancelled
    /// A node failed.
    case error
}
