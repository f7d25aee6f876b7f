/// A graph that cannot run as written: a bad graph file, parameter, connection or format.
///
/// The CLI exits with status 2 for these. The description is the one line printed on
/// stderr, place first, then the problem, then what was expected:
///
///     my-graph.json:7:38: node "vad": parameter "sensitivity": expected a number in 0...1, got "loud"
public struct GraphError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is; stable for tests and for `--json` consumers.
    public enum Code: String, Sendable {
        case syntax, unknownKey, missingKey, wrongType
        case unknownNodeType, unknownParameter, badParameterValue, missingParameter
        case duplicateNodeId, unknownNode, busOutOfRange, busAlreadyConnected
        case cycle, unconnectedInput, formatMismatch, noSource, badOverride
    }

    public var code: Code
    /// The graph file, when the graph came from one.
    public var file: String?
    /// Line and column in the file (1-based), when the parser knows them.
    public var line: Int?
    public var column: Int?
    /// Node id the problem belongs to.
    public var node: String?
    /// Parameter (or JSON key) the problem belongs to.
    public var parameter: String?
    /// What is wrong and what was expected.
    public var message: String
    /// What to try instead, when there is something useful to say.
    public var suggestion: String?

    public init(
        _ code: Code, _ message: String, file: String? = nil, line: Int? = nil, column: Int? = nil,
        node: String? = nil, parameter: String? = nil, suggestion: String? = nil
    ) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.node = node
        self.parameter = parameter
        self.suggestion = suggestion
    }

    /// The error with `file` set if it had none (errors are made deep down, placed above).
    public func inFile(_ file: String?) -> GraphError {
        var copy = self
        if copy.file == nil { copy.file = file }
        return copy
    }

    public var description: String {
        var parts: [String] = []
        if let file {
            var place = file
            if let line { place += ":\(line)" + (column.map { ":\($0)" } ?? "") }
            parts.append(place)
        }
        if let node { parts.append("node \"\(node)\"") }
        if let parameter { parts.append("parameter \"\(parameter)\"") }
        parts.append(message)
        var text = parts.joined(separator: ": ")
        if let suggestion { text += " (\(suggestion))" }
        return text
    }
}
