/// What control connections of one kind carry between the nodes they join: one object
/// shared by each group of nodes that connections of that kind join (a player writes a
/// gate, its listeners read it; a recognizer reports its grammar's progress, an
/// end-of-speech detector reads it). The first node of a group to ask makes it, when the
/// graph is prepared (``PrepareContext/channel(_:as:)``); a node outside every group of
/// the kind gets one of its own, which no other node sees: nothing passes between nodes
/// that the graph does not connect.
///
/// Core knows only that such objects exist; what they hold belongs to the nodes that use
/// them (`AudioGraphConversation`'s playback gate and grammar progress).
package protocol ControlChannel: AnyObject, Sendable {
    /// A channel with nothing in it yet. `renderReady` wakes the render thread: a node
    /// waiting (``FlowStatus/notReady``) for what the channel brings is signalled through it.
    init(renderReady: Readiness)
}

/// Spans of a block to leave out: what a listener's `gate` input covers (the graph's own
/// sound and its echo). A queue that copies blocks silences them as it copies
/// (`BlockQueue.write(_:silencing:)`).
package protocol SilencedSpans: AnyObject, Sendable {
    /// `body(offset, count, silenced)` for consecutive spans of `frames` frames from
    /// `sampleTime` at `rate`, in order. Render thread: no allocation.
    func spans(from sampleTime: Int64, frames: Int, rate: Double,
               _ body: (_ offset: Int, _ count: Int, _ silenced: Bool) -> Void)
}
