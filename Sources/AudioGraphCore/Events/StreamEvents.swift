/// An event a node produced on a thread of its own, behind the audio (a recognizer's
/// partial or final result), stamped with the stream time of the audio it had taken in.
public struct StreamEvent: Sendable, Equatable {
    /// Stream time, in seconds, of the audio the node had consumed when it produced the event.
    public var at: Double
    /// The event.
    public var event: EngineEvent

    /// `event`, stamped with the stream time `at` of the audio consumed.
    public init(at: Double, _ event: EngineEvent) {
        self.at = at
        self.event = event
    }
}

/// What a node that runs behind the audio hands the engine: its new events, oldest first,
/// and how far they are complete (`through`: no event stamped earlier will follow).
public struct StreamEvents: Sendable, Equatable {
    /// New events, oldest first.
    public var events: [StreamEvent]
    /// Stream time through which the node has consumed its input and produced every event
    /// that input implies (`.infinity` once it has finished).
    public var through: Double

    /// `events`, complete through `through`.
    public init(_ events: [StreamEvent], through: Double) {
        self.events = events
        self.through = through
    }
}
