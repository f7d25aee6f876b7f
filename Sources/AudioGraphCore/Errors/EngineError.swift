/// A failure while opening or running a graph that is otherwise valid: unreadable audio,
/// a device or server gone, a recognizer that fails. The CLI exits with status 1.
public struct EngineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the failure comes from; stable for tests and for `--json` consumers.
    public enum Code: String, Sendable {
        /// An input file that cannot be read as audio.
        case audioFile
        /// Reading or writing a file failed (a disk full, a permission).
        case io
        /// A sound device is missing, busy or gone.
        case device
        /// The sound server cannot be reached or went away.
        case server
        /// The recognizer failed while decoding.
        case recognizer
        /// A model, dictionary, grammar or voice cannot be loaded.
        case model
        /// A bounded resource of the engine is exhausted (a queue, a plan, a limit).
        case internalLimit
        /// A tap cannot be installed as asked.
        case tap
        /// The engine was asked for something its state does not allow (a reset while running).
        case state
    }

    /// Where the failure comes from.
    public var code: Code
    /// The graph file being run, when there is one.
    public var graph: String?
    /// File the failure concerns (an audio file, a model file).
    public var file: String?
    /// Node id the failure belongs to.
    public var node: String?
    /// Parameter that led to it, where one did.
    public var parameter: String?
    /// What went wrong, with the library's own words where there are any.
    public var message: String
    /// What the user can do about it.
    public var suggestion: String?

    /// An error of kind `code`: `message` says what happened; the rest say where, when known.
    public init(
        _ code: Code, _ message: String, file: String? = nil, node: String? = nil,
        parameter: String? = nil, suggestion: String? = nil
    ) {
        self.code = code
        self.message = message
        self.file = file
        self.node = node
        self.parameter = parameter
        self.suggestion = suggestion
    }

    /// The error with `node` (and the graph file) set if it had none.
    public func atNode(_ id: String, graph: String? = nil) -> EngineError {
        var copy = self
        if copy.node == nil { copy.node = id }
        if copy.graph == nil { copy.graph = graph }
        return copy
    }

    public var description: String {
        var parts: [String] = []
        if let graph { parts.append(graph) }
        if let node { parts.append("node \"\(node)\"") }
        if let parameter { parts.append("parameter \"\(parameter)\"") }
        if let file { parts.append(file) }
        parts.append(message)
        var text = parts.joined(separator: ": ")
        if let suggestion { text += " (\(suggestion))" }
        return text
    }
}
