/// A validated graph with its nodes made and opened and the format of every bus known.
///
/// This is as far as `audiograph validate` and `dot` go: sources are opened (files read,
/// devices asked for their format) but nothing is created, allocated for rendering or
/// started. The engine goes on from here to prepare and run.
public struct NegotiatedGraph {
    public let graph: ValidatedGraph
    /// Node instances, by node index (declaration order).
    public let instances: [any AudioNode]
    /// Output bus formats, by node index.
    public let formats: [[StreamFormat]]
    /// Largest block on each node's outputs, by node index.
    public let maxFrames: [Int]

    /// Makes and opens every node, then negotiates formats in processing order.
    /// Throws `GraphError` (the formats cannot work) or `EngineError` (opening failed).
    public init(_ graph: ValidatedGraph, blockFrames: Int = 1024) throws {
        self.graph = graph
        var instances: [(any AudioNode)?] = Array(repeating: nil, count: graph.nodes.count)
        for i in graph.order {
            let n = graph.nodes[i]
            do {
                instances[i] = try n.descriptor.make(n.parameters)
            } catch {
                throw error.inFile(graph.description.file)
            }
        }
        var formats = [[StreamFormat]](repeating: [], count: graph.nodes.count)
        var maxFrames = [Int](repeating: blockFrames, count: graph.nodes.count)
        for i in graph.order {
            let n = graph.nodes[i]
            guard let node = instances[i] else { continue }
            do { try node.open() } catch { throw error.atNode(n.id, graph: graph.description.file) }
            let inEdges = graph.inputs(of: i)
            let inFormats = inEdges.map { formats[$0.from][$0.fromBus] }
            do throws(GraphError) {
                let offered = try node.outputFormats(for: inFormats)
                guard offered.count >= n.descriptor.outputs else {
                    throw GraphError(.formatMismatch, "node gave \(offered.count) output formats for \(n.descriptor.outputs) buses")
                }
                formats[i] = Array(offered.prefix(n.descriptor.outputs))
            } catch {
                var e = error.inFile(graph.description.file)
                if e.node == nil { e.node = n.id }
                throw e
            }
            let inMax = inEdges.map { maxFrames[$0.from] }.max() ?? blockFrames
            maxFrames[i] = node.maxOutputFrames(forInputFrames: inMax)
        }
        self.instances = instances.map { $0! }
        self.formats = formats
        self.maxFrames = maxFrames
    }

    /// Format on the edge's source bus.
    public func format(of edge: ValidatedGraph.Edge) -> StreamFormat { formats[edge.from][edge.fromBus] }
}
