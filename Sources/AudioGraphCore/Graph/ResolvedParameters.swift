/// A node's parameters after validation: every value checked against its spec, the
/// descriptor's defaults filled in (``NodeDescriptor/filledWithDefaults(_:)``), so the
/// descriptor is the one place a default is written. Handed to a node type's factory.
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

    /// A number parameter. Validation fills in the descriptor's default, so this is the
    /// value for every parameter that has one; 0 for an optional parameter not given (use
    /// ``optionalNumber(_:)`` for those).
    public func number(_ name: String) -> Double { optionalNumber(name) ?? 0 }

    /// A number parameter, or nil when it was not given and has no default.
    public func optionalNumber(_ name: String) -> Double? {
        if case .number(let n) = values[name] { return n }
        return nil
    }

    /// An integer parameter (see ``number(_:)``).
    public func integer(_ name: String) -> Int { Int(number(name)) }

    /// A boolean parameter (see ``number(_:)``; false for an optional one not given).
    public func bool(_ name: String) -> Bool {
        if case .bool(let b) = values[name] { return b }
        return false
    }

    /// A string, choice or path parameter (nil when absent).
    public func string(_ name: String) -> String? {
        if case .string(let s) = values[name] { return s }
        return nil
    }

    /// A string, choice or path parameter that validation always fills (it has a default or
    /// is required), so its default is written once, in the descriptor. Its absence is a
    /// descriptor without that default: a programming error, stopped here.
    public func text(_ name: String) -> String {
        guard let s = string(name) else {
            preconditionFailure("node \"\(nodeId)\": parameter \"\(name)\" has no default and was not given")
        }
        return s
    }

    /// A choice parameter as the type whose raw values are its words (filled by validation).
    public func choice<T: RawRepresentable>(_ name: String, as type: T.Type = T.self) -> T where T.RawValue == String {
        guard let v = T(rawValue: text(name)) else {
            preconditionFailure("node \"\(nodeId)\": parameter \"\(name)\" has a word \(T.self) does not know")
        }
        return v
    }

    /// A number parameter, or `fallback` when absent.
    @available(*, deprecated, message: "the descriptor's default is filled in by validation: use number(_:) or optionalNumber(_:)")
    public func number(_ name: String, _ fallback: Double) -> Double { optionalNumber(name) ?? fallback }

    /// An integer parameter, or `fallback` when absent.
    @available(*, deprecated, message: "the descriptor's default is filled in by validation: use integer(_:)")
    public func integer(_ name: String, _ fallback: Int) -> Int { optionalNumber(name).map { Int($0) } ?? fallback }

    /// A boolean parameter, or `fallback` when absent.
    @available(*, deprecated, message: "the descriptor's default is filled in by validation: use bool(_:)")
    public func bool(_ name: String, _ fallback: Bool) -> Bool {
        if case .bool(let b) = values[name] { return b }
        return fallback
    }

    /// A `GraphError` about one of these parameters, placed at this node.
    public func error(_ parameter: String?, _ message: String, suggestion: String? = nil) -> GraphError {
        GraphError(.badParameterValue, message, file: file, node: nodeId, parameter: parameter,
                   suggestion: suggestion)
    }
}
