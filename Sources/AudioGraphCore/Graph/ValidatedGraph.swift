/// A graph that passed validation: every node type known, every parameter checked and
/// defaulted, every connection resolved to concrete buses, and an order in which each
/// node comes after everything that feeds it.
public struct ValidatedGraph: Sendable {
    /// One node with its descriptor and checked parameters.
    public struct Node: Sendable {
        /// The node's id.
        public var id: String
        /// Its type.
        public var descriptor: NodeDescriptor
        /// Its parameters, checked and defaulted.
        public var parameters: ResolvedParameters
    }

    /// A connection with both bus numbers resolved.
    public struct Edge: Sendable, Hashable {
        /// Index of the upstream node in `nodes`.
        public var from: Int
        /// Its output bus.
        public var fromBus: Int
        /// Index of the downstream node in `nodes`.
        public var to: Int
        /// Its input bus.
        public var toBus: Int
        /// Whether a format conversion may be inserted.
        public var convert: Bool
    }

    /// The graph as declared.
    public var description: GraphDescription
    /// Nodes in declaration order.
    public var nodes: [Node]
    /// The connections, resolved.
    public var edges: [Edge]
    /// The control connections, checked (by node id: format conversion inserts nodes), with
    /// the ones validation added to a graph that did not say (see `notices`).
    public var controls: [ControlConnection] = []
    /// What validation did that the graph file should say itself (an implicit control
    /// connection added), one line each.
    public var notices: [String] = []
    /// Node indices, each after all of its upstream nodes.
    public var order: [Int]
    /// How to convert formats on connections whose ends disagree (from the registry).
    public var converter: ConverterFactory?

    /// Edges into node `index`, by input bus. It looks through every edge: work over the whole
    /// graph asks ``adjacency`` once instead.
    public func inputs(of index: Int) -> [Edge] {
        edges.filter { $0.to == index }.sorted { $0.toBus < $1.toBus }
    }

    /// Edges out of node `index` (through every edge, as ``inputs(of:)``).
    public func outputs(of index: Int) -> [Edge] { edges.filter { $0.from == index } }

    /// The edges into every node (by input bus) and out of it, found in one pass: a walk over
    /// a graph of many nodes stays linear in its size.
    public var adjacency: (inputs: [[Edge]], outputs: [[Edge]]) {
        var inputs = [[Edge]](repeating: [], count: nodes.count)
        var outputs = [[Edge]](repeating: [], count: nodes.count)
        for e in edges {
            inputs[e.to].append(e)
            outputs[e.from].append(e)
        }
        return (inputs.map { $0.sorted { $0.toBus < $1.toBus } }, outputs)
    }

    /// Whether any source is a live device.
    public var isLive: Bool { nodes.contains { $0.descriptor.isLive } }
}
