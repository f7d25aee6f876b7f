import AudioGraphCore

/// Runs one node type over in-memory audio through the real engine and returns what it
/// output (GstHarness-style), so unit tests exercise nodes exactly as graphs do.
public enum OfflineRender {
    /// What a run gave: the last node's output channels and rate, every event (ending with
    /// `.end(reason)`), and the markers its output carried downstream, in order.
    public typealias Result = (output: [[Float]], rate: Double, events: [EngineEvent], markers: [StreamMarker])

    /// Plays `input` (one array per channel, at `rate`) through a node of `type` with `params`.
    public static func run(
        _ type: String, _ params: [String: ParameterValue] = [:], input: [[Float]], rate: Double,
        chunks: [Int] = [1024], registry: NodeRegistry
    ) async throws -> Result {
        try await run(chain: [(type, params)], input: input, rate: rate, chunks: chunks, registry: registry)
    }

    /// Plays `input` through a chain of nodes (the last one is tapped and its markers recorded).
    public static func run(
        chain: [(String, [String: ParameterValue])], input: [[Float]], rate: Double,
        chunks: [Int] = [1024], registry: NodeRegistry
    ) async throws -> Result {
        var r = registry
        let source = UncheckedSendable(ArraySource(rate: rate, channels: input, chunks: chunks))
        r.register(ArraySource.descriptor { source.value })
        let markers = Locked<[StreamMarker]>([])
        r.register(NodeDescriptor(type: "marker-recorder", summary: "records the markers reaching it", role: .sink,
                                  make: { _ throws(GraphError) in MarkerRecorder(markers) }))
        var g = GraphDescription(name: "offline")
        g.addNode("in", type: "array-source")
        var previous = "in"
        for (k, (type, params)) in chain.enumerated() {
            let id = k == chain.count - 1 ? "node" : "n\(k)"
            g.addNode(id, type: type, params)
            g.connect(previous, to: id)
            previous = id
        }
        g.addNode("out", type: "marker-recorder")
        g.connect("node", to: "out")
        let engine = try AudioEngine(graph: g, registry: r, options: .init(blockFrames: chunks.max() ?? 1024))
        try engine.prepare()
        let collected = Locked<[[Float]]>([])
        let events = Locked<[EngineEvent]>([])
        engine.setEventHandler { e in events.withLock { $0.append(e) } }
        let tap = try engine.installTap(onNode: "node", bufferSize: 4096) { b in
            collected.withLock { all in
                if all.isEmpty { all = Array(repeating: [], count: b.channelCount) }
                for c in 0..<b.channelCount { all[c].append(contentsOf: b.samples(c)) }
            }
        }
        _ = try await engine.run()
        let out = collected.withLock { $0 }
        return (out.isEmpty ? Array(repeating: [], count: tap.format.channelCount) : out, tap.format.sampleRate,
                events.withLock { $0 }, markers.withLock { $0 })
    }
}

/// A sink that records the markers reaching it (off the render thread's hot path only in
/// tests: it takes a lock per marker).
private final class MarkerRecorder: AudioNode {
    let markers: Locked<[StreamMarker]>
    init(_ markers: Locked<[StreamMarker]>) { self.markers = markers }
    func process(_ io: inout ProcessIO) -> FlowStatus {
        for m in io.inputs[0].markers { markers.withLock { $0.append(m) } }
        return .ok
    }
}
