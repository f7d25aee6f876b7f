/// An in-band marker that travels with the audio through the graph: speech and utterance
/// boundaries from `vad` and `end-of-speech`, read by the recognizer downstream.
///
/// Markers ride on the buffer of the block in which they were decided; `t` is the stream
/// time (seconds) they refer to, which may lie before the block (a back-dated onset): a
/// consumer that needs the audio from `t` keeps a pre-roll. The engine copies input
/// markers to the outputs of processors that do not produce their own, so any chain of
/// gains, resamplers and meters carries them along.
public struct StreamMarker: Sendable, BitwiseCopyable, Equatable {
    public enum Kind: UInt8, Sendable, BitwiseCopyable {
        /// Speech began at `t`.
        case speechStart
        /// Speech ended at `t`.
        case speechEnd
        /// The utterance numbered `utterance` ended at `t` (end-of-speech detector).
        case utteranceEnd
    }

    public var kind: Kind
    /// Stream time the marker refers to, in seconds.
    public var t: Double
    /// Stream time at which it was decided, in seconds.
    public var decided: Double
    /// Utterance number for `utteranceEnd`.
    public var utterance: Int32

    public init(_ kind: Kind, t: Double, decided: Double, utterance: Int32 = 0) {
        self.kind = kind
        self.t = t
        self.decided = decided
        self.utterance = utterance
    }
}
