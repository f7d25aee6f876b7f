/// A node's parameters after validation: every value checked against its spec, defaults
/// filled in. Handed to a node type's factory; typed accessors never fail for parameters
/// the descriptor declares.
public struct ResolvedParameters: Sendable {
    /// The node id, for error messages.
    public let nodeId: String
    /// The graph file, for error messages.
    public let file: String?
    private let values: [String: ParameterValue]

    /// The checked `values` of node `nodeId` (from `file`), defaults applied.
    public init(nodeId: String, file: String? = nil, values: [String: ParameterValue]) {
        self.nodeId = nodeId
        self.file = file
        self.values = values
    }

    /// The raw value, or nil when the parameter was not given and has no default.
    public subscript(name: String) -> ParameterValue? { values[name] }

    /// A number parameter (or `fallback` when absent).
    public func number(_ name: String, _ fallback: Double = 0) -> Double {
        if case .number(let n) = values[name] { return n }
        return fallback
    }

    /// An integer parameter (or `fallback` when absent).
    public func integer(_ name: String, _ fallback: Int = 0) -> Int {
        if case .number(let n) = values[name] { return Int(n) }
        return fallback
    }

    /// A string, choice or path parameter (nil when absent).
    public func string(_ name: String) -> String? {
        if case .string(let s) = values[name] { return s }
        return nil
    }

    /// A boolean parameter (or `fallback` when absent).
    public func bool(_ name: String, _ fallback: Bool = false) -> Bool {
        if case .bool(let b) = values[name] { return b }
        return fallback
    }

    /// A `GraphError` about one of these parameters, placed at this node.
    public func error(_ parameter: String?, _ message: String, suggestion: String? = nil) -> GraphError {
        GraphError(.badParameterValue, message, file: file, node: nodeId, parameter: parameter,
                   suggestion: suggestion)
    }
}
