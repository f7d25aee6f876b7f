/// A graph that cannot run as written: a bad graph file, parameter, connection or format.
///
/// The CLI exits with status 2 for these. The description is the one line printed on
/// stderr, place first, then the problem, then what was expected:
///
///     my-graph.json:7:38: node "vad": parameter "sensitivity": expected a number in 0...1, got "loud"
public struct GraphError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is; stable for tests and for `--json` consumers.
    public enum Code: String, Sendable {
        /// The file is not valid JSON.
        case syntax
        /// A key the graph format does not have.
        case unknownKey
        /// A key the graph format requires is missing.
        case missingKey
        /// A value of the wrong JSON type.
        case wrongType
        /// A node type no registry knows.
        case unknownNodeType
        /// A parameter the node type does not have.
        case unknownParameter
        /// A parameter value of the wrong kind or out of range.
        case badParameterValue
        /// A required parameter is missing.
        case missingParameter
        /// Two nodes share an id.
        case duplicateNodeId
        /// A connection or override names a node that does not exist.
        case unknownNode
        /// A connection names a bus the node does not have.
        case busOutOfRange
        /// An input bus is connected twice.
        case busAlreadyConnected
        /// The connections form a cycle.
        case cycle
        /// A node's input is not connected.
        case unconnectedInput
        /// Connected nodes disagree on format and conversion is off (or impossible).
        case formatMismatch
        /// The graph has no source.
        case noSource
        /// A command-line override (`--set`, `--source`, `--sink`) cannot apply.
        case badOverride
        /// A control connection names a port the node type does not have.
        case unknownPort
        /// A control connection goes from an input or to an output.
        case wrongPortDirection
        /// A control connection joins ports of different kinds (text to gate).
        case wrongPortKind
    }

    /// What kind of problem it is.
    public var code: Code
    /// The graph file, when the graph came from one.
    public var file: String?
    /// Line and column in the file (1-based), when the parser knows them.
    public var line: Int?
    /// Column in the file (1-based), with `line`.
    public var column: Int?
    /// Node id the problem belongs to.
    public var node: String?
    /// Parameter (or JSON key) the problem belongs to.
    public var parameter: String?
    /// What is wrong and what was expected.
    public var message: String
    /// What to try instead, when there is something useful to say.
    public var suggestion: String?

    /// An error of kind `code`: `message` says what is wrong; the rest say where, when known.
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
