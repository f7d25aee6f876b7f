/// What a graph's control connections carry, made once when it is compiled: one
/// `PlaybackGate` for each group of nodes that `gate` connections join (players write it,
/// listeners read it), one `HypothesisProgress` for each group `verdict` connections join,
/// and, for each node's control inputs, the nodes connected to them. A node outside every
/// group gets objects of its own, which no other node sees: nothing passes between nodes
/// that the graph does not connect.
struct ControlLinks {
    private var gates: [String: PlaybackGate] = [:]
    private var verdicts: [String: HypothesisProgress] = [:]
    private var inputs: [String: [String: [String]]] = [:]
    private let progressed: Readiness

    init(_ graph: ValidatedGraph, progressed: Readiness) {
        self.progressed = progressed
        let controls = graph.controls
        let descriptors = Dictionary(graph.nodes.map { ($0.id, $0.descriptor) }, uniquingKeysWith: { a, _ in a })
        func kind(_ c: ControlConnection) -> ControlPort.Kind? { descriptors[c.from.node]?.control(c.from.port)?.kind }
        func groups(_ port: (ControlConnection) -> Bool) -> [[String]] {
            var parent: [String: String] = [:]
            func root(_ x: String) -> String {
                var r = x
                while let p = parent[r], p != r { r = p }
                return r
            }
            for c in controls where port(c) {
                for n in [c.from.node, c.to.node] where parent[n] == nil { parent[n] = n }
                parent[root(c.from.node)] = root(c.to.node)
            }
            return Dictionary(grouping: parent.keys, by: root).values.map { $0 }
        }
        for group in groups({ kind($0) == .gate }) {
            let g = PlaybackGate()
            for n in group { gates[n] = g }
        }
        for group in groups({ kind($0) == .verdict }) {
            let h = HypothesisProgress(progressed: progressed)
            for n in group { verdicts[n] = h }
        }
        for c in controls { inputs[c.to.node, default: [:]][c.to.port, default: []].append(c.from.node) }
    }

    /// The gate node `id` writes or reads.
    func gate(of id: String) -> PlaybackGate { gates[id] ?? PlaybackGate() }

    /// The grammar progress node `id` reports to or reads.
    func hypothesis(of id: String) -> HypothesisProgress { verdicts[id] ?? HypothesisProgress(progressed: progressed) }

    /// The nodes connected to each control input of node `id`.
    func sources(of id: String) -> [String: [String]] { inputs[id] ?? [:] }
}
