import AudioGraphCore

/// Runs one node type over in-memory audio through the real engine and returns what it
/// output (GstHarness-style), so unit tests exercise nodes exactly as graphs do.
public enum OfflineRender {
    /// Plays `input` (one array per channel, at `rate`) through a node of `type` with
    /// `params` and returns the output channels and the events the run reported.
    public static func run(
        _ type: String, _ params: [String: ParameterValue] = [:], input: [[Float]], rate: Double,
        chunks: [Int] = [1024], registry: NodeRegistry
    ) async throws -> (output: [[Float]], rate: Double, events: [EngineEvent]) {
        try await run(chain: [(type, params)], input: input, rate: rate, chunks: chunks, registry: registry)
    }

    /// Plays `input` through a chain of nodes (the last one is tapped) and returns what came
    /// out and every event, ending with `.end(reason)`.
    public static func run(
        chain: [(String, [String: ParameterValue])], input: [[Float]], rate: Double,
        chunks: [Int] = [1024], registry: NodeRegistry
    ) async throws -> (output: [[Float]], rate: Double, events: [EngineEvent]) {
        var r = registry
        let source = UncheckedSendable(ArraySource(rate: rate, channels: input, chunks: chunks))
        r.register(ArraySource.descriptor { source.value })
        var g = GraphDescription(name: "offline")
        g.addNode("in", type: "array-source")
        var previous = "in"
        for (k, (type, params)) in chain.enumerated() {
            let id = k == chain.count - 1 ? "node" : "n\(k)"
            g.addNode(id, type: type, params)
            g.connect(previous, to: id)
            previous = id
        }
        g.addNode("out", type: "null-sink")
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
                events.withLock { $0 })
    }
}
