import AudioGraphCore
import Foundation

/// Reads graph files (CONTRACT.md's format) strictly: an unknown key, a value of the wrong
/// JSON type or a duplicate key is an error placed at its line and column, never ignored.
///
///     {"graph": "name", "nodes": [{"id": …, "type": …, "params": {…}}],
///      "connections": [{"from": "id[:bus]", "to": "id[:bus]", "convert": true}],
///      "controls": [{"from": "id.port", "to": "id.port"}]}
public enum GraphFile {
    /// Reads and parses `path`. Throws every problem found, each placed in the file.
    ///
    /// Relative paths of what a graph reads (parameters that take a path: `grammar`, `dict`,
    /// `lm`, `hmm`, a file source's `path`, earcon files) are resolved against the file's
    /// folder, so a graph works from any working directory; relative paths of what it writes
    /// (a wav-sink's `path`: ``ParameterSpec/isOutput``) and paths given later (`--set`,
    /// `--source`) stay relative to the working directory. A path starting with `~/` is in the
    /// home folder (``ParameterSpec/expandingHome(_:)``).
    public static func load(_ path: String, registry: NodeRegistry = .builtin) throws(GraphErrors) -> GraphDescription {
        var graph = try read(path)
        resolvePaths(in: &graph, against: (path as NSString).deletingLastPathComponent, registry: registry)
        return graph
    }

    /// Makes the relative values of path parameters a node reads relative to `folder` instead of the
    /// working directory (nothing changes when `folder` is empty: the file is in it).
    public static func resolvePaths(in graph: inout GraphDescription, against folder: String, registry: NodeRegistry) {
        guard !folder.isEmpty else { return }
        for n in graph.nodes.indices {
            guard let d = registry[graph.nodes[n].type] else { continue }
            for spec in d.parameters where !spec.isOutput {
                let keywords: [String]
                switch spec.kind {
                case .path: keywords = []
                case .sound(let words): keywords = words
                default: continue
                }
                guard case .string(let value)? = graph.nodes[n].params[spec.name], !value.isEmpty, !value.hasPrefix("/"),
                      ParameterSpec.expandingHome(value) == value, !keywords.contains(value) else { continue }
                graph.nodes[n].params[spec.name] = .string((folder as NSString).appendingPathComponent(value))
            }
        }
    }

    /// Largest graph file read: graphs are a few kilobytes; `/dev/zero` is endless.
    static let largestFile = 16 << 20

    /// Reads `path` with read(2), so a pipe works too (`run <(make-graph)`, which Foundation's
    /// whole-file read refused as "permission denied?"), up to ``largestFile``.
    private static func read(_ path: String) throws(GraphErrors) -> GraphDescription {
        func refuse(_ why: String) -> GraphErrors { GraphErrors([GraphError(.syntax, "cannot read graph file: \(why)", file: path)]) }
        if case .directory = PathKind(path) { throw refuse("is a directory, not a graph file") }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw refuse(errno == ENOENT ? "no such file" : String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = Foundation.read(fd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw refuse(String(cString: strerror(errno))) }
            if n == 0 { break }
            bytes += chunk[..<n]
            if bytes.count > largestFile { throw refuse("larger than \(largestFile >> 20) MB: not a graph file") }
        }
        if bytes.isEmpty { throw refuse("empty") }
        return try parse(bytes, file: path)
    }

    /// Parses graph-file text. `file` names it in errors.
    public static func parse(_ bytes: [UInt8], file: String) throws(GraphErrors) -> GraphDescription {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw GraphErrors([GraphError(.syntax, "invalid JSON: \(error.message)", file: file,
                                          line: error.location.line, column: error.location.column)])
        }
        var reader = Reader(file: file)
        let graph = reader.graph(root)
        if !reader.errors.isEmpty { throw GraphErrors(reader.errors, unlisted: reader.unlisted) }
        return graph
    }

    /// Walks the JSON tree, collecting every problem.
    private struct Reader {
        let file: String
        var errors: [GraphError] = []
        /// Problems past the first ``GraphValidator/mostErrors``, counted (as the validator's are).
        var unlisted = 0

        mutating func error(_ code: GraphError.Code, _ message: @autoclosure () -> String, at location: SourceLocation,
                            node: String? = nil, key: String? = nil) {
            guard errors.count < GraphValidator.mostErrors else {
                unlisted += 1
                return
            }
            errors.append(GraphError(code, message(), file: file, line: location.line, column: location.column,
                                     node: node, parameter: key))
        }

        /// The members of an object, checking keys against `allowed` and `required`.
        mutating func members(_ v: JSONValue, what: String, allowed: [String], required: [String],
                              node: String? = nil) -> [String: JSONValue]? {
            guard case .object(let ms) = v.kind else {
                error(.wrongType, "\(what) must be an object, got \(v.typeName)", at: v.location, node: node)
                return nil
            }
            var out: [String: JSONValue] = [:]
            for m in ms {
                if allowed.contains(m.key) {
                    out[m.key] = m.value
                } else {
                    error(.unknownKey, "unknown key \"\(m.key)\" in \(what) (allowed: \(allowed.joined(separator: ", ")))",
                          at: m.keyLocation, node: node)
                }
            }
            for key in required where out[key] == nil {
                error(.missingKey, "\(what) has no \"\(key)\"", at: v.location, node: node)
            }
            return out
        }

        mutating func string(_ v: JSONValue?, what: String, node: String? = nil) -> String? {
            guard let v else { return nil }
            guard case .string(let s) = v.kind else {
                error(.wrongType, "\(what) must be a string, got \(v.typeName)", at: v.location, node: node)
                return nil
            }
            return s
        }

        mutating func graph(_ root: JSONValue) -> GraphDescription {
            var g = GraphDescription(name: "graph", file: file)
            guard let top = members(root, what: "the graph file",
                                    allowed: ["graph", "description", "nodes", "connections", "controls"], required: ["nodes"])
            else { return g }
            if let name = string(top["graph"], what: "\"graph\"") { g.name = name }
            _ = string(top["description"], what: "\"description\"")
            if let nodes = top["nodes"] {
                if case .array(let items) = nodes.kind {
                    for item in items { if let n = node(item) { g.nodes.append(n) } }
                } else {
                    error(.wrongType, "\"nodes\" must be an array, got \(nodes.typeName)", at: nodes.location)
                }
            }
            if let conns = top["connections"] {
                if case .array(let items) = conns.kind {
                    for item in items { if let c = connection(item) { g.connections.append(c) } }
                } else {
                    error(.wrongType, "\"connections\" must be an array, got \(conns.typeName)", at: conns.location)
                }
            }
            if let controls = top["controls"] {
                g.controls = []
                if case .array(let items) = controls.kind {
                    for item in items { if let c = control(item) { g.controls!.append(c) } }
                } else {
                    error(.wrongType, "\"controls\" must be an array, got \(controls.typeName)", at: controls.location)
                }
            }
            return g
        }

        mutating func node(_ v: JSONValue) -> NodeSpec? {
            var id: String?
            if case .object(let ms) = v.kind, let m = ms.first(where: { $0.key == "id" }), case .string(let s) = m.value.kind {
                id = s
            }
            guard let fields = members(v, what: id.map { _ in "a node" } ?? "a node", allowed: ["id", "type", "params"],
                                       required: ["id", "type"], node: id)
            else { return nil }
            guard let nodeId = string(fields["id"], what: "\"id\""),
                  let type = string(fields["type"], what: "\"type\"", node: id)
            else { return nil }
            var spec = NodeSpec(id: nodeId, type: type, location: v.location)
            if let params = fields["params"] {
                guard case .object(let ms) = params.kind else {
                    error(.wrongType, "\"params\" must be an object, got \(params.typeName)", at: params.location, node: nodeId)
                    return spec
                }
                for m in ms {
                    spec.paramLocations[m.key] = m.value.location
                    switch m.value.kind {
                    case .number(let n): spec.params[m.key] = .number(n)
                    case .string(let s): spec.params[m.key] = .string(s)
                    case .bool(let b): spec.params[m.key] = .bool(b)
                    default:
                        error(.badParameterValue, "expected a number, string or boolean, got \(m.value.typeName)",
                              at: m.value.location, node: nodeId, key: m.key)
                    }
                }
            }
            return spec
        }

        /// `{"from": "id.port", "to": "id.port"}`.
        mutating func control(_ v: JSONValue) -> ControlConnection? {
            guard let fields = members(v, what: "a control connection", allowed: ["from", "to"], required: ["from", "to"]),
                  let from = string(fields["from"], what: "\"from\""),
                  let to = string(fields["to"], what: "\"to\"")
            else { return nil }
            guard let f = ControlRef(parsing: from), let t = ControlRef(parsing: to) else {
                let bad = ControlRef(parsing: from) == nil ? ("from", from) : ("to", to)
                error(.unknownPort, "\"\(bad.0)\": \"\(bad.1)\" is not \"id.port\" (a control connection joins ports; audio goes under \"connections\")",
                      at: v.location)
                return nil
            }
            return ControlConnection(from: f, to: t, location: v.location)
        }

        mutating func connection(_ v: JSONValue) -> Connection? {
            guard let fields = members(v, what: "a connection", allowed: ["from", "to", "convert"], required: ["from", "to"]),
                  let from = string(fields["from"], what: "\"from\""),
                  let to = string(fields["to"], what: "\"to\"")
            else { return nil }
            var convert = true
            if let c = fields["convert"] {
                if case .bool(let b) = c.kind { convert = b } else {
                    error(.wrongType, "\"convert\" must be true or false, got \(c.typeName)", at: c.location)
                }
            }
            for (text, what) in [(from, "from"), (to, "to")] {
                if let colon = text.lastIndex(of: ":"), Int(text[text.index(after: colon)...]) == nil {
                    error(.busOutOfRange, "\"\(what)\": \"\(text)\" is not \"id\" or \"id:bus\" (bus must be a number)",
                          at: v.location)
                    return nil
                }
            }
            return Connection(from: BusRef(parsing: from), to: BusRef(parsing: to), convert: convert, location: v.location)
        }
    }
}
