/// A validated graph with its nodes made and opened, the format of every bus known, and
/// conversions inserted where connected nodes disagree.
///
/// This is as far as `audiograph validate` and `dot` go: sources are opened (files read,
/// devices asked for their format) but nothing is created, allocated for rendering or
/// started. The engine goes on from here to prepare and run.
///
///     src (44100 Hz stereo) ──► asr (takes 16000 Hz mono)
///     becomes
///     src ──► src->asr.channels (mixer) ──► src->asr.rate (resampler) ──► asr
package struct NegotiatedGraph {
    /// The graph with inserted converter nodes (their ids contain "->").
    public private(set) var graph: ValidatedGraph
    /// Node instances, by node index.
    public private(set) var instances: [any AudioNode]
    /// Output bus formats, by node index.
    public private(set) var formats: [[StreamFormat]]
    /// Largest block on each node's outputs, by node index.
    public private(set) var maxFrames: [Int]
    /// What was inserted: (converter node id, its type, "from -> to" formats).
    public private(set) var insertions: [(id: String, type: String, conversion: String)] = []

    /// Makes and opens every node, then negotiates formats in processing order.
    /// Throws `GraphError` (the formats cannot work) or `EngineError` (opening failed).
    public init(_ validated: ValidatedGraph, blockFrames: Int = 1024) throws {
        graph = validated
        let file = validated.description.file
        var made: [(any AudioNode)?] = []
        for n in validated.nodes {
            do {
                made.append(try n.descriptor.make(n.parameters))
            } catch {
                throw error.inFile(file)
            }
        }
        instances = []
        formats = Array(repeating: [], count: validated.nodes.count)
        maxFrames = Array(repeating: blockFrames, count: validated.nodes.count)
        var order = validated.order
        // Edges into each node, kept as converters are inserted.
        var inputsOf = validated.adjacency.inputs
        var position = 0
        while position < order.count {
            let i = order[position]
            let n = graph.nodes[i]
            guard let node = made[i] else { position += 1; continue }
            do { try node.open() } catch { throw error.atNode(n.id, graph: file) }
            // Insert conversions on inputs whose format the node does not take.
            var inserted = false
            let inEdges = inputsOf[i]
            let offered = inEdges.map { formats[$0.from][$0.fromBus] }
            for (k, e) in inEdges.enumerated() {
                let wanted = node.acceptedFormat(forInput: e.toBus, offered: offered[k], all: offered)
                guard wanted != offered[k] else { continue }
                let fromId = graph.nodes[e.from].id
                guard e.convert, let steps = graph.converter?(offered[k], wanted), !steps.isEmpty else {
                    throw GraphError(.formatMismatch,
                                     "\"\(fromId)\" gives \(offered[k]) but \"\(n.id)\" takes \(wanted) on input \(e.toBus)"
                                        + (e.convert ? " and no conversion is available" : " (\"convert\": false)"),
                                     file: file, node: n.id,
                                     suggestion: e.convert ? nil : "remove \"convert\": false or add a resampler/mixer")
                }
                var upstream = (node: e.from, bus: e.fromBus)
                var newIndices: [Int] = []
                for step in steps {
                    let suffix = step.descriptor.type == "mixer" ? "channels" : step.descriptor.type == "resampler" ? "rate" : step.descriptor.type
                    let id = "\(fromId)->\(n.id).\(suffix)"
                    var values: [String: ParameterValue] = step.params
                    for p in step.descriptor.parameters where values[p.name] == nil {
                        if let d = p.defaultValue { values[p.name] = d }
                    }
                    let params = ResolvedParameters(nodeId: id, file: file, values: values)
                    let index = graph.nodes.count
                    graph.nodes.append(.init(id: id, descriptor: step.descriptor, parameters: params))
                    do { made.append(try step.descriptor.make(params)) } catch { throw error.inFile(file) }
                    formats.append([])
                    maxFrames.append(blockFrames)
                    let edge = ValidatedGraph.Edge(from: upstream.node, fromBus: upstream.bus, to: index, toBus: 0, convert: true)
                    graph.edges.append(edge)
                    inputsOf.append([edge])
                    upstream = (index, 0)
                    newIndices.append(index)
                    insertions.append((id, step.descriptor.type, "\(offered[k]) -> \(wanted)"))
                }
                let converted = ValidatedGraph.Edge(from: upstream.node, fromBus: upstream.bus, to: i, toBus: e.toBus, convert: true)
                if let at = graph.edges.firstIndex(of: e) { graph.edges[at] = converted }
                inputsOf[i][k] = converted
                order.insert(contentsOf: newIndices, at: position)
                inserted = true
            }
            if inserted { continue }  // negotiate the new converters first, then this node again
            let inFormats = inputsOf[i].map { formats[$0.from][$0.fromBus] }
            do throws(GraphError) {
                let out = try node.outputFormats(for: inFormats)
                guard out.count >= n.descriptor.outputs else {
                    throw GraphError(.formatMismatch, "node gave \(out.count) output formats for \(n.descriptor.outputs) buses")
                }
                formats[i] = Array(out.prefix(n.descriptor.outputs))
            } catch {
                var e = error.inFile(file)
                if e.node == nil { e.node = n.id }
                throw e
            }
            let inMax = inputsOf[i].map { maxFrames[$0.from] }.max() ?? blockFrames
            maxFrames[i] = node.maxOutputFrames(forInputFrames: inMax)
            position += 1
        }
        graph.order = order
        instances = made.map { $0! }
    }

    /// Format on the edge's source bus.
    public func format(of edge: ValidatedGraph.Edge) -> StreamFormat { formats[edge.from][edge.fromBus] }
}
