/// A fixed-size event a node emits from the render thread (no strings, no allocation).
///
/// It travels with the audio through the engine's event ring, in stream order, and is
/// turned into a public ``EngineEvent`` on the delivery thread by the node that made it
/// (`AudioNode.publicEvent`), which knows what its values mean.
public struct NodeEvent: Sendable, BitwiseCopyable {
    /// Kind of event: the standard kinds below, or a node type's own (>= 1000).
    public struct Kind: RawRepresentable, Hashable, Sendable, BitwiseCopyable {
        public var rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        /// `values.0` RMS dBFS, `values.1` peak dBFS.
        public static let level = Kind(rawValue: 1)
        /// Speech began (`t` the onset, `decided` when known).
        public static let speechStart = Kind(rawValue: 2)
        /// Speech ended (`t` the offset, `decided` when known).
        public static let speechEnd = Kind(rawValue: 3)
        /// `values.0` utterance number.
        public static let utteranceEnd = Kind(rawValue: 4)
        /// A node-defined warning; `code` is the node's warning code.
        public static let warning = Kind(rawValue: 5)
        /// Frames lost at a queue; `values.0` lost count.
        public static let overrun = Kind(rawValue: 6)
        /// A device ran dry; `values.0` times (server-reported), `values.1` frames of silence given.
        public static let underrun = Kind(rawValue: 7)
    }

    /// Kind of event (the meaning of `values`).
    public var kind: Kind
    /// Index of the emitting node in the render plan (set by the engine).
    public var node: Int32 = 0
    /// Stream time the event refers to, in seconds.
    public var t: Double
    /// Stream time at which it was decided, in seconds (equals `t` for instant events).
    public var decided: Double
    /// Kind-specific measures (levels, counts, probabilities).
    public var values: (Double, Double, Double, Double)
    /// Kind-specific code: an enum case or flags, never a measure (kept out of `values` so a
    /// case is not a Double to round back).
    public var code: Int32

    /// An event of `kind` about stream time `t`, decided at `decided` (default `t`), with
    /// `values` and `code` as the kind defines them.
    public init(_ kind: Kind, t: Double, decided: Double? = nil,
                values: (Double, Double, Double, Double) = (0, 0, 0, 0), code: Int32 = 0) {
        self.kind = kind
        self.t = t
        self.decided = decided ?? t
        self.values = values
        self.code = code
    }

    /// The public form of the standard kinds; nil for node-defined kinds.
    public func standardEvent(nodeId: String) -> EngineEvent? {
        switch kind {
        case .level: return .level(node: nodeId, t: t, rms: values.0, peak: values.1)
        case .speechStart: return .speechStart(node: nodeId, t: t, decided: decided)
        case .speechEnd: return .speechEnd(node: nodeId, t: t, decided: decided)
        case .utteranceEnd:
            return .utteranceEnd(node: nodeId, utterance: Int(values.0), t: t, decided: decided)
        case .overrun: return .overrun(node: nodeId, lost: Int(values.0))
        case .underrun: return .underrun(node: nodeId, count: Int(values.0), frames: Int(values.1))
        default: return nil
        }
    }
}
