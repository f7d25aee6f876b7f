/// Checks a ``GraphDescription`` against a ``NodeRegistry`` and reports every problem at
/// once, each as one ``GraphError`` placed at its file, line, node and parameter.
public enum GraphValidator {
    /// Validates `graph`; returns the validated graph or all errors found.
    public static func validate(_ graph: GraphDescription, registry: NodeRegistry) -> Result<ValidatedGraph, GraphErrors> {
        var errors: [GraphError] = []
        var nodes: [ValidatedGraph.Node] = []
        var indexById: [String: Int] = [:]

        func error(_ code: GraphError.Code, _ message: String, at location: SourceLocation?,
                   node: String? = nil, parameter: String? = nil, suggestion: String? = nil) {
            errors.append(GraphError(code, message, file: graph.file, line: location?.line,
                                     column: location?.column, node: node, parameter: parameter,
                                     suggestion: suggestion))
        }

        // Nodes and their parameters.
        for spec in graph.nodes {
            if spec.id.isEmpty || spec.id.contains(":") {
                error(.badParameterValue, "node id must be non-empty and contain no ':'", at: spec.location,
                      node: spec.id)
            }
            if indexById[spec.id] != nil {
                error(.duplicateNodeId, "duplicate node id (ids must be unique)", at: spec.location, node: spec.id)
                continue
            }
            guard let descriptor = registry[spec.type] else {
                let near = closest(spec.type, among: registry.descriptors.map(\.type))
                error(.unknownNodeType, "unknown node type \"\(spec.type)\"", at: spec.location, node: spec.id,
                      suggestion: near.map { "did you mean \"\($0)\"? `audiograph nodes` lists them" }
                        ?? "`audiograph nodes` lists the node types")
                indexById[spec.id] = -1
                continue
            }
            var values: [String: ParameterValue] = [:]
            for (name, value) in spec.params.sorted(by: { $0.key < $1.key }) {
                let at = spec.paramLocations[name] ?? spec.location
                guard let p = descriptor.parameter(name) else {
                    let names = descriptor.parameters.map(\.name)
                    let near = closest(name, among: names)
                    error(.unknownParameter, "unknown parameter for type \"\(spec.type)\"", at: at, node: spec.id,
                          parameter: name,
                          suggestion: near.map { "did you mean \"\($0)\"?" }
                            ?? (names.isEmpty ? "this type has no parameters"
                                : "known: \(names.joined(separator: ", "))"))
                    continue
                }
                switch p.check(value) {
                case .success(let v): values[name] = v
                case .failure(let why):
                    error(.badParameterValue, why.message, at: at, node: spec.id, parameter: name)
                }
            }
            for p in descriptor.parameters where p.isRequired && values[p.name] == nil && spec.params[p.name] == nil {
                error(.missingParameter, "required parameter is missing (\(p.kindDescription): \(p.help))",
                      at: spec.location, node: spec.id, parameter: p.name)
            }
            values = descriptor.filledWithDefaults(values)
            indexById[spec.id] = nodes.count
            nodes.append(.init(id: spec.id, descriptor: descriptor,
                               parameters: ResolvedParameters(nodeId: spec.id, file: graph.file, values: values)))
        }

        // Connections.
        var edges: [ValidatedGraph.Edge] = []
        var edgeLocations: [SourceLocation?] = []
        var fedByUnknown = Set<Int>()
        var taken = Set<[Int]>()
        for c in graph.connections {
            guard let from = indexById[c.from.node] else {
                error(.unknownNode, "connection from unknown node \"\(c.from.node)\"", at: c.location,
                      suggestion: closest(c.from.node, among: graph.nodes.map(\.id)).map { "did you mean \"\($0)\"?" })
                continue
            }
            guard let to = indexById[c.to.node] else {
                error(.unknownNode, "connection to unknown node \"\(c.to.node)\"", at: c.location,
                      suggestion: closest(c.to.node, among: graph.nodes.map(\.id)).map { "did you mean \"\($0)\"?" })
                continue
            }
            guard from >= 0, to >= 0 else {  // unknown type, already reported
                if to >= 0 { fedByUnknown.insert(to) }  // its input is not missing: its source is unknown
                continue
            }
            let src = nodes[from], dst = nodes[to]
            let outBus = c.from.bus ?? 0
            if src.descriptor.outputs == 0 {
                error(.busOutOfRange, "\"\(src.id)\" is a \(src.descriptor.type) and has no outputs to connect from",
                      at: c.location, node: src.id)
                continue
            }
            if outBus < 0 || outBus >= src.descriptor.outputs {
                error(.busOutOfRange, "output bus \(outBus) out of range (\(src.descriptor.type) has \(src.descriptor.outputs))",
                      at: c.location, node: src.id)
                continue
            }
            let maxIn = dst.descriptor.inputs.maximum
            if maxIn == 0 {
                error(.busOutOfRange, "\"\(dst.id)\" is a \(dst.descriptor.type) and has no inputs to connect to",
                      at: c.location, node: dst.id)
                continue
            }
            var inBus = c.to.bus ?? 0
            if c.to.bus == nil, case .variadic = dst.descriptor.inputs {
                while taken.contains([to, inBus]) && inBus < maxIn { inBus += 1 }
            }
            if inBus < 0 || inBus >= maxIn {
                error(.busOutOfRange, "input bus \(inBus) out of range (\(dst.descriptor.type) takes \(maxIn))",
                      at: c.location, node: dst.id)
                continue
            }
            if taken.contains([to, inBus]) {
                error(.busAlreadyConnected, "input bus \(inBus) is already connected",
                      at: c.location, node: dst.id,
                      suggestion: "use a mixer to combine outputs")
                continue
            }
            taken.insert([to, inBus])
            edges.append(.init(from: from, fromBus: outBus, to: to, toBus: inBus, convert: c.convert))
            edgeLocations.append(c.location)
        }

        // Required inputs.
        for (i, n) in nodes.enumerated() where !fedByUnknown.contains(i) {
            let connected = Set(edges.filter { $0.to == i }.map(\.toBus))
            let location = graph.nodes.first { $0.id == n.id }?.location
            switch n.descriptor.inputs {
            case .fixed(let count):
                for bus in 0..<count where !connected.contains(bus) {
                    error(.unconnectedInput, "input bus \(bus) is not connected", at: location, node: n.id,
                          suggestion: "connect an output to \"\(n.id)\(bus == 0 ? "" : ":\(bus)")\"")
                }
            case .variadic:
                if connected.isEmpty {
                    error(.unconnectedInput, "no input is connected", at: location, node: n.id)
                } else if let gap = (0..<(connected.max() ?? 0)).first(where: { !connected.contains($0) }) {
                    error(.unconnectedInput, "input bus \(gap) is not connected (buses must be 0...n without gaps)",
                          at: location, node: n.id)
                }
            }
        }
        if !nodes.isEmpty && !nodes.contains(where: { $0.descriptor.role == .source }) {
            error(.noSource, "graph has no source node", at: nil)
        }
        if graph.nodes.isEmpty {
            error(.noSource, "graph has no nodes", at: nil)
        }

        // Order (Kahn); what is left over lies on a cycle.
        var indegree = [Int](repeating: 0, count: nodes.count)
        for e in edges { indegree[e.to] += 1 }
        var ready = (0..<nodes.count).filter { indegree[$0] == 0 }
        var order: [Int] = []
        while let i = ready.first {
            ready.removeFirst()
            order.append(i)
            for e in edges where e.from == i {
                indegree[e.to] -= 1
                if indegree[e.to] == 0 { ready.append(e.to) }
            }
        }
        if order.count < nodes.count {
            // Left over: the nodes on a cycle and those downstream of one. Walk back from a
            // leftover node along leftover inputs until a node repeats: that is a cycle.
            let stuck = Set(0..<nodes.count).subtracting(order)
            var path: [Int] = [stuck.min()!]
            var closed = false
            while !closed {
                let k = edges.indices.first { edges[$0].to == path.last! && stuck.contains(edges[$0].from) }!
                if let at = path.firstIndex(of: edges[k].from) {
                    path = Array(path[at...])
                    closed = true
                } else {
                    path.append(edges[k].from)
                }
            }
            // In flow order each node feeds the next and the last the first. The connection
            // reported is the cycle's last in the file (most likely the one written back
            // upstream), and the loop is named from where it leads.
            let flow = Array(path.reversed()), n = flow.count
            let cycleEdges = (0..<n).map { i in
                edges.indices.last { edges[$0].from == flow[i] && edges[$0].to == flow[(i + 1) % n] }!
            }
            let back = cycleEdges.indices.max { cycleEdges[$0] < cycleEdges[$1] }!
            let loop = (0...n).map { "\"\(nodes[flow[(back + 1 + $0) % n]].id)\"" }
            let k = cycleEdges[back]
            error(.cycle, "connections form a cycle: " + loop.joined(separator: " -> "),
                  at: edgeLocations[k], node: nodes[edges[k].from].id,
                  suggestion: "a graph runs each node once per block, so audio cannot flow back; remove one of these connections")
        }

        let (controls, notices, controlErrors) = checkControls(graph, nodes: nodes, implicit: registry.implicitControls)
        errors += controlErrors
        if !errors.isEmpty { return .failure(GraphErrors(errors)) }
        return .success(ValidatedGraph(description: graph, nodes: nodes, edges: edges, controls: controls, notices: notices,
                                       order: order, converter: registry.converter))
    }

    /// The candidate nearest `word` by edit distance, if near enough to suggest.
    package static func closest(_ word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, editDistance(word, $0)) }.min { $0.1 < $1.1 }
        guard let (best, d) = scored, d <= max(2, word.count / 3) else { return nil }
        return best
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            for j in 1...b.count {
                let old = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = old
            }
        }
        return row[b.count]
    }
}

/// Every problem found in one graph (a file may have several; all are reported at once).
public struct GraphErrors: Error, Sendable, CustomStringConvertible {
    /// The problems, in the order found (by place in the file).
    public var errors: [GraphError]
    /// Wraps `errors`.
    public init(_ errors: [GraphError]) { self.errors = errors }
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
