/// A node of the graph: a source, processor or sink of audio.
///
/// Nodes are plain classes confined to the render thread once the engine starts, like
/// NIO channel handlers: nothing else calls them while a run is in progress.
///
/// Life cycle (JUCE's prepareToPlay/processBlock, GStreamer's state changes):
///
///     init(parameters)        validate cross-parameter rules          (control thread)
///     open()                  open files and devices, learn formats   (control thread)
///     outputFormats(for:)     negotiate formats                       (control thread)
///     prepare(_:)             allocate everything process needs      (control thread)
///     process(_:) ...         one block at a time; real time          (render thread)
///     finish(_:)              close files, flush what is pending     (control thread)
///
/// `process` must not allocate, lock, log or perform blocking I/O.
public protocol AudioNode: AnyObject {
    /// Opens files or devices. Sources learn their output format here.
    func open() throws(EngineError)

    /// The format of each output bus given the format of each connected input bus.
    /// Throws when the node cannot accept the inputs it is offered.
    func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat]

    /// The format this node takes on input `bus` when offered `offered` (with `all` the
    /// formats offered on every input). When it differs, the engine inserts a conversion
    /// (or reports a mismatch where the connection says `"convert": false`).
    func acceptedFormat(forInput bus: Int, offered: StreamFormat, all: [StreamFormat]) -> StreamFormat

    /// Largest block this node can output for an input block of `frames` frames
    /// (sources: for a block of `frames` frames requested by the engine).
    func maxOutputFrames(forInputFrames frames: Int) -> Int

    /// Allocates buffers, tables and plans. Called once before the first `process`.
    func prepare(_ context: PrepareContext) throws(EngineError)

    /// Processes one block. Called on the render thread; must not allocate, lock or block.
    func process(_ io: inout ProcessIO) -> FlowStatus

    /// Called after the last block, on the control thread: finalise files, free devices.
    func finish(_ reason: EndReason) throws(EngineError)

    /// Clears state (filters, counters) so the node can run again from stream time 0.
    func reset()

    /// Describes a failure code returned from `process`. Control thread.
    func failure(_ code: Int32) -> EngineError

    /// Turns a raw event this node emitted into a public event. Delivery thread.
    func publicEvent(_ raw: NodeEvent, nodeId: String) -> EngineEvent?

    /// Events a node produced off the render thread that are not about the audio (a device's
    /// reports), taken by the delivery thread in order. Delivery thread; may lock (not real-time).
    func takeEvents(nodeId: String) -> [EngineEvent]

    /// For a node that works through its input on a thread of its own, behind the render
    /// thread (a recognizer): its new events, stamped with the audio it had consumed, and how
    /// far it has got. The engine merges them with the render thread's events in stream order
    /// (see `StreamOrder`). nil for nodes without such a thread. Delivery thread; may lock.
    func takeStreamEvents(nodeId: String) -> StreamEvents?

    /// Whether the node works through its input on a thread of its own and reports through
    /// ``takeStreamEvents(nodeId:)`` (a recognizer). With file input in lockstep the engine
    /// waits for such a node's reports only through the audio it has been given.
    var worksBehind: Bool { get }

    /// Whether the node's events may still come after its input has ended (a remote
    /// recognizer's, from its server): a node answering what the graph heard does not end
    /// before this one has.
    var reportsAfterInput: Bool { get }

    /// For a node that works behind the audio: whether it can take another block now without
    /// dropping it (room in its queue). With live input the engine holds rendering back while
    /// it cannot and the clock source ``holdsBacklog``: a burst of input costs latency, not words.
    var canTakeBlock: Bool { get }

    /// For a live source: whether it keeps what arrives while the graph is held back (its
    /// device or server still has room for the backlog). Past that the engine renders on and
    /// a lagging node drops, counted and reported.
    var holdsBacklog: Bool { get }

    /// The run is being cancelled: drop pending work at once (a decoder's queued audio, its
    /// result in progress). Called on the control thread at any time during a run, also
    /// while `finish` waits for a thread of the node's own: set flags only.
    func abandon()

    /// The engine paused (true) or resumed (false): a device source corks its stream.
    /// Render thread, between blocks (may take the device's lock; not per buffer).
    func setPaused(_ paused: Bool)

    /// Whether this source holds audio worth delivering after `stop()` (a device's
    /// buffered capture). If so, the engine keeps calling `process` with
    /// `ProcessIO.isStopping` until it returns `.endOfStream`; otherwise the source just ends.
    var drainsOnStop: Bool { get }

    /// Total frames a source will produce, when known (for progress displays).
    var durationFrames: Int64? { get }

    /// Whether the node, when not ready, waits for the program running the graph (a
    /// `stream-source` fed by a server connection): the render plan then waits without the
    /// time limit it puts on a stalled decoder or file reader.
    var waitsForProgram: Bool { get }

    /// Whether ``observe(_:at:)`` should see the run's events (a speech-synth answering finals).
    var observesEvents: Bool { get }

    /// Called on the delivery thread with each event the engine delivers, in stream order,
    /// when ``observesEvents``, with the stream time the event was decided at (infinity when
    /// it has none). Must not block.
    func observe(_ event: EngineEvent, at stamp: Double)
}

extension AudioNode {
    public func open() throws(EngineError) {}
    public func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] {
        inputs.isEmpty ? [] : [inputs[0]]
    }
    public func maxOutputFrames(forInputFrames frames: Int) -> Int { frames }
    public func acceptedFormat(forInput bus: Int, offered: StreamFormat, all: [StreamFormat]) -> StreamFormat {
        offered
    }
    public func prepare(_ context: PrepareContext) throws(EngineError) {}
    public func finish(_ reason: EndReason) throws(EngineError) {}
    public func reset() {}
    public func failure(_ code: Int32) -> EngineError {
        EngineError(.internalLimit, "failed with code \(code)")
    }
    public func publicEvent(_ raw: NodeEvent, nodeId: String) -> EngineEvent? {
        raw.standardEvent(nodeId: nodeId)
    }
    public func takeEvents(nodeId: String) -> [EngineEvent] { [] }
    public func takeStreamEvents(nodeId: String) -> StreamEvents? { nil }
    public var worksBehind: Bool { false }
    public var reportsAfterInput: Bool { false }
    public var canTakeBlock: Bool { true }
    public var holdsBacklog: Bool { false }
    public var drainsOnStop: Bool { false }
    public func setPaused(_ paused: Bool) {}
    public func abandon() {}
    public var durationFrames: Int64? { nil }
    public var waitsForProgram: Bool { false }
    public var observesEvents: Bool { false }
    public func observe(_ event: EngineEvent, at stamp: Double) {}
}

/// What a node learns when it is prepared.
public struct PrepareContext: Sendable {
    /// Format of each connected input bus.
    public var inputFormats: [StreamFormat]
    /// Format of each output bus, as negotiated.
    public var outputFormats: [StreamFormat]
    /// Largest block the node will be given on its inputs (sources: asked to produce).
    public var maxFrames: Int
    /// Whether the graph runs from live input (drop-and-count policies apply).
    public var isLive: Bool
    /// Marker kinds some node upstream produces (so a recognizer knows whether utterances
    /// will be delimited for it).
    public var upstreamMarkers: Set<StreamMarker.Kind>
    /// Signal it when a thread of the node's own (a decoder, a writer) has events for
    /// `takeEvents`, so the engine delivers them at once instead of at its next poll.
    public var eventsReady: Wakeup
    /// Signal it when something a node's `process` returned ``FlowStatus/notReady`` for has
    /// come (a worker thread's data, a decoder's progress): the render thread waits on it.
    public var renderReady: Readiness
    /// The graph's control channels (nil: every channel asked for is the node's own).
    package var links: ControlLinks?
    /// The node's id in the graph (where its control connections start and end).
    package var nodeId: String
    /// For each control input port of the node, the ids of the nodes connected to it (a
    /// speech-synth answers only the recognizers connected to its `text`).
    public var controlSources: [String: [String]]

    /// A context with every field given (the engine makes these; tests and harnesses may too).
    package init(inputFormats: [StreamFormat], outputFormats: [StreamFormat], maxFrames: Int, isLive: Bool,
                upstreamMarkers: Set<StreamMarker.Kind> = [], eventsReady: Wakeup = Wakeup(), renderReady: Readiness = Readiness(),
                links: ControlLinks? = nil, nodeId: String = "", controlSources: [String: [String]] = [:]) {
        self.renderReady = renderReady
        self.controlSources = controlSources
        self.links = links
        self.nodeId = nodeId
        self.inputFormats = inputFormats
        self.outputFormats = outputFormats
        self.maxFrames = maxFrames
        self.isLive = isLive
        self.upstreamMarkers = upstreamMarkers
        self.eventsReady = eventsReady
    }

    /// What the node's control connections of kind `kind` carry: the channel its group shares
    /// (see ``ControlChannel``), or one of its own when it has no connection of that kind.
    package func channel<C: ControlChannel>(_ kind: ControlPort.Kind, as type: C.Type = C.self) -> C {
        links?.channel(kind, of: nodeId, renderReady: renderReady) ?? C(renderReady: renderReady)
    }
}

/// What `process` reports (GStreamer's GstFlowReturn).
public enum FlowStatus: Sendable, Equatable {
    /// The block was processed; carry on.
    case ok
    /// The node has produced everything it will (sources at end of file, processors
    /// once their tail is flushed).
    case endOfStream
    /// The node failed; `code` is explained by `AudioNode.failure(_:)` off the render thread.
    case failed(Int32)
    /// Something the node needs for this block is not there yet (a recognizer's verdict,
    /// decoded file data, room in a playback buffer, synthesised speech, a device's captured
    /// audio). The node consumed and emitted nothing; the engine waits, in one place, until
    /// whatever the node waits for signals ``PrepareContext/renderReady``, and calls
    /// `process` again with the same block. Nodes never sleep in `process` themselves. With
    /// live input only the clock source (the device the graph runs on) is waited for, a
    /// moment at a time; any other node not ready produces nothing that block.
    case notReady
}
