/// An in-band marker that travels with the audio through the graph: speech and utterance
/// boundaries from `vad` and `end-of-speech`, read by the recognizer downstream.
///
/// Markers ride on the buffer of the block in which they were decided; `t` is the stream
/// time (seconds) they refer to, which may lie before the block (a back-dated onset): a
/// consumer that needs the audio from `t` keeps a pre-roll. The engine copies input
/// markers to the outputs of processors that do not produce their own, so any chain of
/// gains, resamplers and meters carries them along.
public struct StreamMarker: Sendable, BitwiseCopyable, Equatable {
    /// The boundaries markers carry.
    public enum Kind: UInt8, Sendable, BitwiseCopyable {
        /// Speech began at `t`.
        case speechStart
        /// Speech ended at `t`.
        case speechEnd
        /// The utterance numbered `utterance` ended at `t` (end-of-speech detector).
        case utteranceEnd
        /// Sound that may be the start of speech began at `t`; the vad confirms it
        /// (`speechStart`) or drops it (`speechDropped`) when the sound stops. A hint for
        /// end-of-speech, which holds an utterance open meanwhile, until `resolvesBy` at most
        /// (in noise that never stops, the hint may stay undecided).
        case speechPossible
        /// The sound announced by the last `speechPossible` was not speech.
        case speechDropped
    }

    /// Which boundary.
    public var kind: Kind
    /// Stream time the marker refers to, in seconds.
    public var t: Double
    /// Stream time at which it was decided, in seconds.
    public var decided: Double
    /// Utterance number for `utteranceEnd`.
    public var utterance: Int32
    /// For `speechPossible`: stream time until which end-of-speech waits for its outcome
    /// (an onset it leads into is normally confirmed by then).
    public var resolvesBy: Double

    /// A boundary at stream time `t`, decided at `decided`, for `utterance` (end-of-speech), resolved by `resolvesBy` (possible speech).
    public init(_ kind: Kind, t: Double, decided: Double, utterance: Int32 = 0, resolvesBy: Double = 0) {
        self.kind = kind
        self.t = t
        self.decided = decided
        self.utterance = utterance
        self.resolvesBy = resolvesBy
    }
}
