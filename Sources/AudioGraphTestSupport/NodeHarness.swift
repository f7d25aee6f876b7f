import AudioGraphCore
import Foundation

/// Drives one node by hand on the caller's thread (GStreamer's GstHarness, swift-nio's
/// EmbeddedChannel): push a block in, take out what it produced, the markers on it and the
/// events it emitted.
///
/// It drives the engine's own parts, so a change in them cannot pass the sweeps unseen: the
/// node is validated by ``GraphValidator`` in a graph where a feed source stands for each
/// input bus, and each block runs through the engine's render plan (sample times, markers
/// copied to the outputs of a node that makes none, the end of input, a node not ready
/// waited for). It converts nothing: offer the formats the node takes (a mismatch is the
/// negotiation's error, as with `"convert": false`).
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
    /// The format of each input bus.
    public let inputFormats: [StreamFormat]
    /// The negotiated format of each output bus.
    public let outputFormats: [StreamFormat]
    /// Largest block `push` takes per bus (sources: `pull` asks for).
    public let maxFrames: Int

    private let plan: RenderPlan
    private let step: RenderStep
    private let feeds: [HarnessFeed]
    private let outlet = EventOutlet(capacity: 1 << 14, policy: .drop)
    private let id: String
    private var fed: [Int64]
    private var output: [[[Float]]]
    private var markers: [[StreamMarker]]
    private var events: [EngineEvent] = []
    /// The status the node returned last (nil before the first block).
    public private(set) var lastStatus: FlowStatus?
    /// Whether the node has said it will produce nothing more.
    public var isEnded: Bool { step.ended }

    /// Makes a node of `type` with `params` (checked and defaulted by the validator, as a
    /// graph file's are), opens it, negotiates formats against `inputs` (one format per
    /// input bus; none for a source) and prepares it for blocks of up to `maxFrames`.
    /// `upstreamMarkers`: the marker kinds its input will carry. Throws the validator's
    /// `GraphError` for the node (an unknown type, a bad parameter), or `GraphError` or
    /// `EngineError` when it cannot be prepared.
    public init(_ type: String, _ params: [String: ParameterValue] = [:], inputs offered: [StreamFormat] = [],
                maxFrames: Int = 4096, isLive: Bool = false, upstreamMarkers: Set<StreamMarker.Kind> = [],
                registry: NodeRegistry) throws {
        var r = registry
        r.register(HarnessFeed.descriptor(markers: upstreamMarkers, isLive: isLive))
        var g = GraphDescription(name: "harness")
        g.controls = []  // the node alone: no control links
        for (b, f) in offered.enumerated() {
            g.addNode("feed\(b)", type: "harness-feed", ["rate": .number(f.sampleRate), "channels": .number(Double(f.channelCount))])
        }
        g.addNode(type, type: type, params)
        for b in offered.indices { g.connect("feed\(b)", to: "\(type):\(b)", convert: false) }
        let validated: ValidatedGraph
        switch GraphValidator.validate(g, registry: r) {
        case .success(let v): validated = v
        case .failure(let e): throw e.errors.first { $0.node == type } ?? e.errors[0]  // the node's own problem first
        }
        let readiness = Readiness()
        let compiled = try RenderPlan.compile(validated, blockFrames: maxFrames, events: outlet, eventsReady: Wakeup(),
                                              renderReady: readiness)
        compiled.waitInterrupted = { programFed in programFed }  // nothing feeds a program-fed source here
        plan = compiled
        step = compiled.stepById[type]!
        node = step.node
        descriptor = validated.nodes.first { $0.id == type }!.descriptor
        feeds = offered.indices.map { compiled.stepById["feed\($0)"]!.node as! HarnessFeed }
        inputFormats = feeds.map(\.format)
        outputFormats = step.outputs.map(\.format)
        id = type
        self.maxFrames = maxFrames
        fed = offered.map { _ in 0 }
        output = outputFormats.map { Array(repeating: [], count: $0.channelCount) }
        markers = outputFormats.map { _ in [] }
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
        precondition(buses.count == feeds.count, "one block per input bus")
        for (b, channels) in buses.enumerated() {
            let buffer = feeds[b].staged
            let frames = channels.first?.count ?? 0
            precondition(channels.count == buffer.channelCount || frames == 0, "one array per channel")
            precondition(frames <= maxFrames, "a block of at most maxFrames")
            buffer.frameLength = frames
            for (c, samples) in channels.enumerated() where frames > 0 {
                samples.withUnsafeBufferPointer { buffer.channel(c).update(from: $0.baseAddress!, count: frames) }
            }
            buffer.clearMarkers()
            for m in b < markers.count ? markers[b] : [] { _ = buffer.addMarker(m) }
            fed[b] += Int64(frames)
        }
        return run()
    }

    /// Asks a source for a block of `frames` frames.
    @discardableResult
    public func pull(frames: Int) -> FlowStatus {
        precondition(feeds.isEmpty && frames <= maxFrames, "pull is for sources, at most maxFrames")
        plan.blockFrames = frames
        return run()
    }

    /// Tells the node its input has ended and processes empty blocks until it ends (or has
    /// produced nothing for a block, as the engine ends a processor), at most `blocks` times.
    @discardableResult
    public func endInput(blocks: Int = 10_000) -> FlowStatus {
        for f in feeds { f.ending = true }
        var status = lastStatus ?? .ok
        for _ in 0..<blocks where !isEnded {
            status = run()
            if case .failed = status { break }
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
    public func producedFrames(bus: Int = 0) -> Int64 { step.produced[bus] }

    /// One block through the render plan; the node's status.
    private func run() -> FlowStatus {
        guard !isEnded else { return .endOfStream }
        let ok = plan.renderBlock()
        let status: FlowStatus
        if !ok, let (failed, code) = plan.failure, failed === step {
            status = .failed(code)
        } else {
            status = step.lastStatus ?? .ok
        }
        for (b, o) in step.outputs.enumerated() {
            precondition(o.frameLength <= o.frameCapacity, "\(id) wrote past its output")
            for c in 0..<o.channelCount where o.frameLength > 0 { output[b][c] += o.samples(c).prefix(o.frameLength) }
            markers[b] += o.markers
        }
        lastStatus = status
        collectEvents()
        return status
    }

    private func collectEvents() {
        while let raw = outlet.ring.pop() {
            guard raw.node == Int32(step.index) else { continue }  // the feeds' (none, in practice)
            if let e = node.publicEvent(raw, nodeId: id) { events.append(e) }
        }
        events += node.takeEvents(nodeId: id)
        if let s = node.takeStreamEvents(nodeId: id) { events += s.events.map(\.event) }
    }
}
