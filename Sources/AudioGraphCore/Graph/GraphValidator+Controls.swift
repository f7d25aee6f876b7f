/// Control connections: checked against the node types' ports, or, for a graph that does
/// not say them (``GraphDescription/controls`` nil), added as the first releases made them
/// implicitly (the registry's ``NodeRegistry/implicitControls``), with one notice.
extension GraphValidator {
    /// Checks `graph`'s control connections against `nodes` (validated, by id); returns the
    /// connections in force, the notices and the errors (at most `room`, and how many more).
    static func checkControls(_ graph: GraphDescription, nodes: [ValidatedGraph.Node],
                              implicit: (@Sendable ([ValidatedGraph.Node]) -> [ControlConnection])?, room: Int)
        -> (controls: [ControlConnection], notices: [String], errors: [GraphError], unlisted: Int)
    {
        let byId = Dictionary(nodes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        guard let declared = graph.controls else {
            let added = implicit?(nodes) ?? []
            guard !added.isEmpty else { return ([], [], [], 0) }
            let list = added.map { "\($0.from) -> \($0.to)" }.joined(separator: ", ")
            let notice = (graph.file.map { "\($0): " } ?? "") + "no \"controls\": added the links this graph relied on: "
                + list + " (write them under \"controls\"; see `audiograph nodes`)"
            return (added, [notice], [], 0)
        }
        var errors: [GraphError] = []
        var unlisted = 0
        func error(_ code: GraphError.Code, _ message: @autoclosure () -> String, line: Int?, column: Int?, node: String?,
                   suggestion: @autoclosure () -> String? = nil) {
            guard errors.count < room else {
                unlisted += 1
                return
            }
            errors.append(GraphError(code, message(), file: graph.file, line: line, column: column, node: node, suggestion: suggestion()))
        }
        func error(_ code: GraphError.Code, _ message: @autoclosure () -> String, _ c: ControlConnection, node: String?,
                   suggestion: @autoclosure () -> String? = nil) {
            error(code, message(), line: c.location?.line, column: c.location?.column, node: node, suggestion: suggestion())
        }
        /// The port `ref` names, or nil after reporting why not.
        func port(_ ref: ControlRef, _ c: ControlConnection, side: String) -> ControlPort? {
            guard let n = byId[ref.node] else {
                if graph.index(of: ref.node) == nil {  // an unknown type is reported already
                    error(.unknownNode, "control connection \(side) unknown node \"\(ref.node)\"", c, node: nil,
                          suggestion: closest(ref.node, among: graph.nodes.map(\.id)).map { "did you mean \"\($0)\"?" })
                }
                return nil
            }
            guard let p = n.descriptor.control(ref.port) else {
                let names = n.descriptor.controls.map(\.name)
                error(.unknownPort, "\(n.descriptor.type) has no control port \"\(ref.port)\"", c, node: ref.node,
                      suggestion: closest(ref.port, among: names).map { "did you mean \"\($0)\"?" }
                        ?? (names.isEmpty ? "it has no control ports" : "its ports: \(names.joined(separator: ", "))"))
                return nil
            }
            return p
        }
        var seen = Set<[String]>()
        var checked: [ControlConnection] = []
        for c in declared {
            let from = port(c.from, c, side: "from"), to = port(c.to, c, side: "to")
            guard let from, let to else { continue }
            guard from.direction == .output else {
                error(.wrongPortDirection, "\"\(c.from)\" is an input: a control connection goes from an output to an input", c,
                      node: c.from.node)
                continue
            }
            guard to.direction == .input else {
                error(.wrongPortDirection, "\"\(c.to)\" is an output: a control connection goes from an output to an input", c,
                      node: c.to.node)
                continue
            }
            guard from.kind == to.kind else {
                error(.wrongPortKind, "\"\(c.from)\" carries \(from.kind.rawValue), \"\(c.to)\" takes \(to.kind.rawValue)", c,
                      node: c.to.node)
                continue
            }
            guard seen.insert([c.from.description, c.to.description]).inserted else {
                error(.busAlreadyConnected, "\"\(c.from)\" -> \"\(c.to)\" is connected twice", c, node: c.to.node)
                continue
            }
            checked.append(c)
        }
        let fed = Set(checked.map { [$0.to.node, $0.to.port] })
        let locations = Dictionary(graph.nodes.map { ($0.id, $0.location) }, uniquingKeysWith: { first, _ in first })
        for n in nodes {
            for p in n.descriptor.controls where p.isRequired && !fed.contains([n.id, p.name]) {
                let location = locations[n.id] ?? nil
                error(.unconnectedInput, "control input \"\(p.name)\" (\(p.kind.rawValue)) is not connected",
                      line: location?.line, column: location?.column, node: n.id,
                      suggestion: "connect an output of kind \(p.kind.rawValue) to \"\(n.id).\(p.name)\"")
            }
        }
        return (checked, [], errors, unlisted)
    }
}
