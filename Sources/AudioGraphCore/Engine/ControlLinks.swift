/// What a graph's control connections carry, worked out once when it is compiled: for each
/// port kind, the groups of nodes its connections join (each group shares one
/// ``ControlChannel``, made by the first node that asks), and, for each node's control
/// inputs, the nodes connected to them. A node outside every group of a kind gets a channel
/// of its own, which no other node sees: nothing passes between nodes that the graph does
/// not connect.
package final class ControlLinks: Sendable {
    /// For each kind, each node's group number (part of the key its channel is made under).
    private let groups: [ControlPort.Kind: [String: Int]]
    private let inputs: [String: [String: [String]]]
    /// The channels made so far, by kind and group. Prepare time only (never the render thread).
    private let made = Locked<[String: any ControlChannel]>([:])

    /// The links of `graph`'s control connections.
    init(_ graph: ValidatedGraph) {
        let controls = graph.controls
        let descriptors = Dictionary(graph.nodes.map { ($0.id, $0.descriptor) }, uniquingKeysWith: { a, _ in a })
        var parent: [ControlPort.Kind: [String: String]] = [:]
        func root(_ x: String, _ k: ControlPort.Kind) -> String {
            var r = x
            while let p = parent[k]?[r], p != r { r = p }
            return r
        }
        for c in controls {
            guard let k = descriptors[c.from.node]?.control(c.from.port)?.kind else { continue }
            for n in [c.from.node, c.to.node] where parent[k]?[n] == nil { parent[k, default: [:]][n] = n }
            parent[k]![root(c.from.node, k)] = root(c.to.node, k)
        }
        var groups: [ControlPort.Kind: [String: Int]] = [:]
        for (k, nodes) in parent {
            var index: [String: Int] = [:]
            for n in nodes.keys.sorted() {
                let r = root(n, k)
                if index[r] == nil { index[r] = index.count }
                groups[k, default: [:]][n] = index[r]
            }
        }
        self.groups = groups
        var inputs: [String: [String: [String]]] = [:]
        for c in controls { inputs[c.to.node, default: [:]][c.to.port, default: []].append(c.from.node) }
        self.inputs = inputs
    }

    /// The channel of kind `kind` node `id` writes or reads: its group's, or one of its own.
    func channel<C: ControlChannel>(_ kind: ControlPort.Kind, of id: String, renderReady: Readiness) -> C {
        guard let g = groups[kind]?[id] else { return C(renderReady: renderReady) }
        return made.withLock { made in
            let key = "\(kind.rawValue)#\(g)"
            if let c = made[key] as? C { return c }
            let c = C(renderReady: renderReady)
            made[key] = c
            return c
        }
    }

    /// The nodes connected to each control input of node `id`.
    func sources(of id: String) -> [String: [String]] { inputs[id] ?? [:] }
}
