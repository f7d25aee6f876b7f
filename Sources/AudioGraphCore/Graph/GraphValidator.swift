import Foundation

/// Checks a ``GraphDescription`` against a ``NodeRegistry`` and reports every problem at
/// once, each as one ``GraphError`` placed at its file, line, node and parameter.
public enum GraphValidator {
    /// The most problems listed for one graph; past it they are counted
    /// (``GraphErrors/unlisted``), not described: a generated graph that is wrong throughout
    /// gets a screenful, not one line per node with a "did you mean" searched for each.
    public static let mostErrors = 50

    /// Validates `graph`; returns the validated graph or all errors found (the first
    /// ``mostErrors``, and how many more).
    public static func validate(_ graph: GraphDescription, registry: NodeRegistry) -> Result<ValidatedGraph, GraphErrors> {
        var errors: [GraphError] = []
        var unlisted = 0
        var nodes: [ValidatedGraph.Node] = []
        var indexById: [String: Int] = [:]

        func error(_ code: GraphError.Code, _ message: @autoclosure () -> String, at location: SourceLocation?,
                   node: String? = nil, parameter: String? = nil, suggestion: @autoclosure () -> String? = nil) {
            guard errors.count < mostErrors else {
                unlisted += 1
                return
            }
            errors.append(GraphError(code, message(), file: graph.file, line: location?.line,
                                     column: location?.column, node: node, parameter: parameter,
                                     suggestion: suggestion()))
        }

        // Nodes and their parameters.
        for spec in graph.nodes {
            if !NodeID.isWellFormed(spec.id) {
                error(.badParameterValue, NodeID.rule, at: spec.location, node: spec.id,
                      suggestion: NodeID.suggestion(for: spec.id).map { "did you mean \"\($0)\"?" })
            }
            if indexById[spec.id] != nil {
                error(.duplicateNodeId, "duplicate node id (ids must be unique)", at: spec.location, node: spec.id)
                continue
            }
            guard let descriptor = registry[spec.type] else {
                error(.unknownNodeType, "unknown node type \"\(spec.type)\"", at: spec.location, node: spec.id,
                      suggestion: closest(spec.type, among: registry.descriptors.map(\.type)).map { "did you mean \"\($0)\"? `audiograph nodes` lists them" }
                        ?? "`audiograph nodes` lists the node types")
                indexById[spec.id] = -1
                continue
            }
            var values: [String: ParameterValue] = [:]
            for (name, value) in spec.params.sorted(by: { $0.key < $1.key }) {
                let at = spec.paramLocations[name] ?? spec.location
                guard let p = descriptor.parameter(name) else {
                    let names = descriptor.parameters.map(\.name)
                    error(.unknownParameter, "unknown parameter for type \"\(spec.type)\"", at: at, node: spec.id,
                          parameter: name,
                          suggestion: closest(name, among: names).map { "did you mean \"\($0)\"?" }
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

        // Files written: two nodes writing one file would mix their audio in it (devices such
        // as /dev/null take any number; a link to the same file is caught when it is opened).
        var writers: [String: String] = [:]
        let specById = Dictionary(graph.nodes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for node in nodes {
            guard let spec = specById[node.id] else { continue }
            for p in node.descriptor.parameters where p.isOutput {
                guard case .string(let path)? = node.parameters[p.name] else { continue }
                let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
                let key = (absolute as NSString).standardizingPath
                if case .special = PathKind(key) { continue }
                if let other = writers[key] {
                    error(.badParameterValue, "\"\(path)\" is the file node \"\(other)\" writes: two writers would mix their audio in it",
                          at: spec.paramLocations[p.name] ?? spec.location, node: spec.id, parameter: p.name,
                          suggestion: "give each its own file")
                } else {
                    writers[key] = spec.id
                }
            }
        }

        // Connections.
        var edges: [ValidatedGraph.Edge] = []
        var edgeLocations: [SourceLocation?] = []
        var fedByUnknown = Set<Int>()
        var taken = Set<[Int]>()
        // Below it every input bus of the node is taken (a variadic node's next free one is
        // found from there, not from 0).
        var firstFree = [Int](repeating: 0, count: nodes.count)
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
                inBus = firstFree[to]
                while taken.contains([to, inBus]) && inBus < maxIn { inBus += 1 }
                firstFree[to] = inBus
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
        var busesIn = [Set<Int>](repeating: [], count: nodes.count)
        for e in edges { busesIn[e.to].insert(e.toBus) }
        let locations = Dictionary(graph.nodes.map { ($0.id, $0.location) }, uniquingKeysWith: { first, _ in first })
        for (i, n) in nodes.enumerated() where !fedByUnknown.contains(i) {
            let connected = busesIn[i]
            let location = locations[n.id] ?? nil
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
        var edgesOut = [[Int]](repeating: [], count: nodes.count)
        var edgesIn = [[Int]](repeating: [], count: nodes.count)
        for (k, e) in edges.enumerated() {
            indegree[e.to] += 1
            edgesOut[e.from].append(k)
            edgesIn[e.to].append(k)
        }
        var order = (0..<nodes.count).filter { indegree[$0] == 0 }
        var next = 0
        while next < order.count {
            for k in edgesOut[order[next]] {
                indegree[edges[k].to] -= 1
                if indegree[edges[k].to] == 0 { order.append(edges[k].to) }
            }
            next += 1
        }
        if order.count < nodes.count {
            // Left over: the nodes on a cycle and those downstream of one. Walk back from a
            // leftover node along leftover inputs until a node repeats: that is a cycle.
            let stuck = Set(0..<nodes.count).subtracting(order)
            var path: [Int] = [stuck.min()!]
            var placeInPath = [path[0]: 0]
            var closed = false
            while !closed {
                let k = edgesIn[path.last!].first { stuck.contains(edges[$0].from) }!
                if let at = placeInPath[edges[k].from] {
                    path = Array(path[at...])
                    closed = true
                } else {
                    placeInPath[edges[k].from] = path.count
                    path.append(edges[k].from)
                }
            }
            // In flow order each node feeds the next and the last the first. The connection
            // reported is the cycle's last in the file (most likely the one written back
            // upstream), and the loop is named from where it leads.
            let flow = Array(path.reversed()), n = flow.count
            let cycleEdges = (0..<n).map { i in
                edgesOut[flow[i]].last { edges[$0].to == flow[(i + 1) % n] }!
            }
            let back = cycleEdges.indices.max { cycleEdges[$0] < cycleEdges[$1] }!
            let loop = (0...n).map { "\"\(nodes[flow[(back + 1 + $0) % n]].id)\"" }
            let k = cycleEdges[back]
            error(.cycle, "connections form a cycle: " + loop.joined(separator: " -> "),
                  at: edgeLocations[k], node: nodes[edges[k].from].id,
                  suggestion: "a graph runs each node once per block, so audio cannot flow back; remove one of these connections")
        }

        let checked = checkControls(graph, nodes: nodes, implicit: registry.implicitControls, room: mostErrors - errors.count)
        let (controls, notices) = (checked.controls, checked.notices)
        errors += checked.errors
        unlisted += checked.unlisted
        if !errors.isEmpty { return .failure(GraphErrors(errors, unlisted: unlisted)) }
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
    /// Problems found past those listed (``GraphValidator/mostErrors``).
    public var unlisted: Int
    /// Wraps `errors`, with `unlisted` more found and not described.
    public init(_ errors: [GraphError], unlisted: Int = 0) {
        self.errors = errors
        self.unlisted = unlisted
    }
    /// One line a problem, then how many more there are.
    public var lines: [String] {
        errors.map(\.description) + (unlisted > 0 ? ["(\(unlisted) more \(unlisted == 1 ? "problem" : "problems") in \(errors.first?.file ?? "the graph"), not listed)"] : [])
    }
    public var description: String { lines.joined(separator: "\n") }
}
