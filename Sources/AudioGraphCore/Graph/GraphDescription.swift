/// A graph as declared: nodes with parameters and the connections between their buses.
///
/// It is a plain value, made from a graph file (`GraphFile.load`) or in code, edited
/// (`--set`, `--source`), validated against a ``NodeRegistry`` and compiled by the engine.
///
///     var graph = GraphDescription(name: "demo")
///     graph.addNode("src", type: "file-source", ["path": "speech.wav"])
///     graph.addNode("gain", type: "gain", ["db": -6])
///     graph.addNode("out", type: "wav-sink", ["path": "quieter.wav"])
///     graph.connect("src", to: "gain")
///     graph.connect("gain", to: "out")
public struct GraphDescription: Sendable {
    /// A graph's name (the file's `"graph"` key).
    public var name: String
    /// The file it was read from, for error messages.
    public var file: String?
    /// The nodes, in declaration order.
    public var nodes: [NodeSpec]
    /// The connections, in declaration order.
    public var connections: [Connection]
    /// The control connections, in declaration order; nil when the graph does not say (a
    /// graph file without `"controls"`, as every file of the first releases): validation
    /// then adds the links those graphs relied on (the registry's `implicitControls`), each with a notice.
    public var controls: [ControlConnection]?

    /// A graph named `name`, empty unless nodes and connections are given.
    public init(name: String, file: String? = nil, nodes: [NodeSpec] = [], connections: [Connection] = []) {
        self.name = name
        self.file = file
        self.nodes = nodes
        self.connections = connections
    }

    /// Adds a node.
    public mutating func addNode(_ id: String, type: String, _ params: [String: ParameterValue] = [:]) {
        nodes.append(NodeSpec(id: id, type: type, params: params))
    }

    /// Connects `from` ("id" or "id:bus") to `to`; bus 0 when omitted (or, for a node with
    /// variadic inputs, the next free bus).
    public mutating func connect(_ from: String, to: String, convert: Bool = true) {
        connections.append(Connection(from: BusRef(parsing: from), to: BusRef(parsing: to), convert: convert))
    }

    /// Connects control port `from` ("id.port") to `to`; the graph then says all its links.
    public mutating func connectControl(_ from: String, to: String) {
        guard let f = ControlRef(parsing: from), let t = ControlRef(parsing: to) else {
            preconditionFailure("control ports are written \"id.port\": \(from), \(to)")
        }
        controls = (controls ?? []) + [ControlConnection(from: f, to: t)]
    }

    /// Index of node `id`.
    public func index(of id: String) -> Int? { nodes.firstIndex { $0.id == id } }
}

/// One node as declared.
public struct NodeSpec: Sendable {
    /// Unique id within the graph.
    public var id: String
    /// Node type, as registered (`"vad"`, `"recognizer"`, ...).
    public var type: String
    /// Parameter values as given (defaults are applied by validation).
    public var params: [String: ParameterValue]
    /// Where the node object starts in its file.
    public var location: SourceLocation?
    /// Where each parameter's value stands in the file.
    public var paramLocations: [String: SourceLocation]

    /// A node `id` of `type` with `params`.
    public init(id: String, type: String, params: [String: ParameterValue] = [:],
                location: SourceLocation? = nil, paramLocations: [String: SourceLocation] = [:]) {
        self.id = id
        self.type = type
        self.params = params
        self.location = location
        self.paramLocations = paramLocations
    }
}

/// A bus of a node: `"id"` or `"id:N"`.
public struct BusRef: Sendable, Hashable, CustomStringConvertible {
    /// The node's id.
    public var node: String
    /// Bus number; nil when the file left it out.
    public var bus: Int?

    /// Bus `bus` of node `node` (unspecified when nil).
    public init(node: String, bus: Int? = nil) {
        self.node = node
        self.bus = bus
    }

    /// Parses `"id"` or `"id:N"`. A suffix that is not a number stays part of the id
    /// (validation then reports the unknown node).
    public init(parsing text: String) {
        if let colon = text.lastIndex(of: ":"), let n = Int(text[text.index(after: colon)...]) {
            self.init(node: String(text[..<colon]), bus: n)
        } else {
            self.init(node: text)
        }
    }

    public var description: String { bus.map { "\(node):\($0)" } ?? node }
}

/// An edge from an output bus to an input bus.
public struct Connection: Sendable {
    /// The output bus.
    public var from: BusRef
    /// The input bus.
    public var to: BusRef
    /// Whether the engine may convert rate and channels when the two ends disagree.
    public var convert: Bool
    /// Where the connection stands in its file.
    public var location: SourceLocation?

    /// An edge from `from` to `to`.
    public init(from: BusRef, to: BusRef, convert: Bool = true, location: SourceLocation? = nil) {
        self.from = from
        self.to = to
        self.convert = convert
        self.location = location
    }
}

/// A line and column (1-based) in a graph file.
public struct SourceLocation: Sendable, Hashable {
    /// Line, from 1.
    public var line: Int
    /// Column, from 1.
    public var column: Int
    /// The place at `line`, `column`.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
}

extension ParameterValue: ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
