import AudioGraphCore

/// Drives one node by hand on the caller's thread, with no engine, clock or render thread
/// (GStreamer's GstHarness, swift-nio's EmbeddedChannel): push a block in, take out what it
/// produced, the markers on it and the events it emitted.
///
/// The harness does what the engine's render loop does for one node and nothing more:
/// it stamps sample times, copies input markers to the outputs of a node that makes none of
/// its own, tells the node when its input has ended, and turns its raw events into public
/// ones. It converts nothing: push audio in ``inputFormats`` (what the node accepts of the
/// offered formats).
///
/// ```swift
/// let h = try NodeHarness("gain", ["db": -6], inputs: [.init(sampleRate: 16000, channelCount: 1)],
///                         registry: .builtin)
/// h.push([[0.5, 0.5]])
/// #expect(h.takeOutput() == [[0.25, 0.25]])
/// ```
public final class NodeHarness {
    /// The node under test.
    public let node: any AudioNode
    /// Its type's descriptor.
    public let descriptor: NodeDescriptor
    /// The format of each input bus: what the node accepts of what it was offered.
    public let inputFormats: [StreamFormat]
    /// The negotiated format of each output bus.
    public let outputFormats: [StreamFormat]
    /// Largest block `push` takes per bus (sources: `pull` asks for).
    public let maxFrames: Int

    private let inputs: [AudioBuffer]
    private let outputs: [AudioBuffer]
    private let outlet = EventOutlet(capacity: 1 << 14, policy: .drop)
    /// What a node not ready waits on (the engine's, in a run).
    private let readiness = Readiness()
    private let isLive: Bool
    private let id: String
    private var fed: [Int64]
    private var produced: [Int64]
    private var inputEnded: [Bool]
    private var output: [[[Float]]]
    private var markers: [[StreamMarker]]
    private var events: [EngineEvent] = []
    /// The status the node returned last (nil before the first block).
    public private(set) var lastStatus: FlowStatus?
    /// Whether the node has said it will produce nothing more.
    public private(set) var isEnded = false

    /// Makes a node of `type` with `params` (checked and defaulted as a graph file's are),
    /// opens it, negotiates formats against `inputs` (one offered format per input bus;
    /// none for a source) and prepares it for blocks of up to `maxFrames`.
    /// `upstreamMarkers`: the marker kinds to tell the node its input will carry.
    public init(_ type: String, _ params: [String: ParameterValue] = [:], inputs offered: [StreamFormat] = [],
                maxFrames: Int = 4096, isLive: Bool = false, upstreamMarkers: Set<StreamMarker.Kind> = [],
                registry: NodeRegistry) throws {
        guard let d = registry[type] else { throw GraphError(.unknownNodeType, "unknown node type \"\(type)\"") }
        descriptor = d
        id = type
        var values: [String: ParameterValue] = [:]
        for (name, value) in params {
            guard let spec = d.parameter(name) else {
                throw GraphError(.unknownParameter, "unknown parameter for type \"\(type)\"", node: type, parameter: name)
            }
            switch spec.check(value) {
            case .success(let v): values[name] = v
            case .failure(let why): throw GraphError(.badParameterValue, why.message, node: type, parameter: name)
            }
        }
        for spec in d.parameters where spec.isRequired && values[spec.name] == nil {
            throw GraphError(.missingParameter, "required parameter is missing", node: type, parameter: spec.name)
        }
        let made = try d.make(ResolvedParameters(nodeId: type, values: d.filledWithDefaults(values)))
        try made.open()
        let accepted = offered.indices.map { made.acceptedFormat(forInput: $0, offered: offered[$0], all: offered) }
        node = made
        inputFormats = accepted
        outputFormats = try made.outputFormats(for: accepted)
        self.maxFrames = maxFrames
        self.isLive = isLive
        let outFrames = made.maxOutputFrames(forInputFrames: maxFrames)
        inputs = accepted.map { AudioBuffer(format: $0, frameCapacity: maxFrames) }
        outputs = outputFormats.map { AudioBuffer(format: $0, frameCapacity: outFrames) }
        fed = accepted.map { _ in 0 }
        produced = outputFormats.map { _ in 0 }
        inputEnded = accepted.map { _ in false }
        output = outputFormats.map { Array(repeating: [], count: $0.channelCount) }
        markers = outputFormats.map { _ in [] }
        try node.prepare(PrepareContext(inputFormats: accepted, outputFormats: outputFormats,
                                        maxFrames: maxFrames, isLive: isLive,
                                        upstreamMarkers: upstreamMarkers, renderReady: readiness))
    }

    /// Pushes one block on input bus 0 (one array per channel, all the same length, at most
    /// `maxFrames`; empty arrays for an empty block) with `markers`, and processes it.
    @discardableResult
    public func push(_ channels: [[Float]], markers: [StreamMarker] = []) -> FlowStatus {
        push(buses: [channels], markers: [markers])
    }

    /// Pushes one block on every input bus and processes it.
    @discardableResult
    public func push(buses: [[[Float]]], markers: [[StreamMarker]] = []) -> FlowStatus {
        precondition(buses.count == inputs.count, "one block per input bus")
        for (b, channels) in buses.enumerated() {
            let buffer = inputs[b]
            let frames = channels.first?.count ?? 0
            precondition(channels.count == buffer.channelCount || frames == 0, "one array per channel")
            precondition(frames <= maxFrames, "a block of at most maxFrames")
            buffer.sampleTime = fed[b]
            buffer.frameLength = frames
            for (c, samples) in channels.enumerated() where frames > 0 {
                samples.withUnsafeBufferPointer { buffer.channel(c).update(from: $0.baseAddress!, count: frames) }
            }
            buffer.clearMarkers()
            for m in b < markers.count ? markers[b] : [] { _ = buffer.addMarker(m) }
            fed[b] += Int64(frames)
        }
        return run(requested: maxFrames, inputsEnded: false)
    }

    /// Asks a source for a block of `frames` frames.
    @discardableResult
    public func pull(frames: Int) -> FlowStatus {
        precondition(inputs.isEmpty && frames <= maxFrames, "pull is for sources, at most maxFrames")
        return run(requested: frames, inputsEnded: false)
    }

    /// Tells the node its input has ended and processes empty blocks until it ends (or has
    /// produced nothing for a block, as the engine ends a processor), at most `blocks` times.
    @discardableResult
    public func endInput(blocks: Int = 10_000) -> FlowStatus {
        for b in inputs.indices {
            inputs[b].frameLength = 0
            inputs[b].sampleTime = fed[b]
            inputs[b].clearMarkers()
            inputEnded[b] = true
        }
        var status = lastStatus ?? .ok
        for _ in 0..<blocks where !isEnded {
            let before = produced.reduce(0, +)
            status = run(requested: maxFrames, inputsEnded: true)
            if case .failed = status { break }
            if status == .ok && produced.reduce(0, +) == before { isEnded = true }
        }
        return status
    }

    /// Ends the run as the engine does after the last block (files closed, threads joined).
    public func finish(_ reason: EndReason = .endOfInput) throws(EngineError) {
        try node.finish(reason)
        collectEvents()
    }

    /// The audio bus `bus` produced since the last call, one array per channel.
    public func takeOutput(bus: Int = 0) -> [[Float]] {
        defer { output[bus] = output[bus].map { _ in [] } }
        return output[bus]
    }

    /// The markers bus `bus` carried since the last call.
    public func takeMarkers(bus: Int = 0) -> [StreamMarker] {
        defer { markers[bus] = [] }
        return markers[bus]
    }

    /// The public events the node emitted since the last call, in order.
    public func takeEvents() -> [EngineEvent] {
        collectEvents()
        defer { events = [] }
        return events
    }

    /// Frames produced on bus `bus` so far.
    public func producedFrames(bus: Int = 0) -> Int64 { produced[bus] }

    private func run(requested: Int, inputsEnded: Bool) -> FlowStatus {
        guard !isEnded else { return .endOfStream }
        for (b, o) in outputs.enumerated() {
            o.frameLength = 0
            o.sampleTime = produced[b]
            o.clearMarkers()
        }
        let status = inputEnded.withUnsafeBufferPointer { ended in
            var io = ProcessIO(inputs: inputs, outputs: outputs, inputsEnded: !inputs.isEmpty && inputsEnded,
                               requestedFrames: requested, events: outlet, nodeIndex: 0, inputEnded: ended)
            // As the engine does: a node not ready is asked again once what it waits for
            // signals (file input), or produces nothing this block (live input).
            let since = monotonicSeconds()
            var mark = readiness.mark()
            var status = node.process(&io)
            while status == .notReady && !isLive && monotonicSeconds() - since < 30 {
                readiness.wait(unchangedFrom: mark, timeout: 0.05)
                mark = readiness.mark()
                status = node.process(&io)
            }
            return status == .notReady ? FlowStatus.ok : status
        }
        if descriptor.forwardsMarkers, let first = inputs.first, first.markerCount > 0 {
            for o in outputs { o.copyMarkers(from: first) }
        }
        for (b, o) in outputs.enumerated() {
            precondition(o.frameLength <= o.frameCapacity, "\(id) wrote past its output")
            for c in 0..<o.channelCount where o.frameLength > 0 { output[b][c] += o.samples(c).prefix(o.frameLength) }
            markers[b] += o.markers
            produced[b] += Int64(o.frameLength)
        }
        for b in inputs.indices { inputs[b].clearMarkers() }
        lastStatus = status
        if status == .endOfStream { isEnded = true }
        collectEvents()
        return status
    }

    private func collectEvents() {
        while let raw = outlet.ring.pop() {
            if let e = node.publicEvent(raw, nodeId: id) { events.append(e) }
        }
        events += node.takeEvents(nodeId: id)
        if let s = node.takeStreamEvents(nodeId: id) { events += s.events.map(\.event) }
    }
}
