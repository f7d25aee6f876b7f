/// A typed control port of a node type: what flows between nodes besides audio (text to
/// speak, whether the graph is playing, a recognizer's grammar verdict), declared beside the
/// audio buses so that graph files connect it, `validate` checks it, `dot` draws it and
/// `nodes` lists it.
///
///     "controls": [{"from": "asr.finals", "to": "tts.text"},
///                  {"from": "tts.playing", "to": "vad.gate"}]
public struct ControlPort: Sendable, Equatable {
    /// What a port carries; an output connects only to an input of the same kind.
    public enum Kind: String, Sendable, CaseIterable {
        /// Recognised text (final results).
        case text
        /// Whether, and when, the graph is playing sound: listeners leave it and its echo out.
        case gate
        /// Where what the graph plays may be heard back through an echo canceller (not left
        /// out): a listener does not learn the talker from it.
        case echo
        /// Whether a recognizer's hypothesis is a whole sentence of its grammar.
        case verdict
    }

    /// Whether the node reads or writes the port.
    public enum Direction: String, Sendable {
        /// The node reads it.
        case input
        /// The node writes it.
        case output
    }

    /// The port's name in graph files (`node.port`).
    public var name: String
    /// What it carries.
    public var kind: Kind
    /// Whether the node reads or writes it.
    public var direction: Direction
    /// Whether a graph must connect it (only inputs).
    public var isRequired: Bool
    /// One line saying what flows through it.
    public var help: String

    /// An input port `name` of `kind`.
    public static func input(_ name: String, _ kind: Kind, required: Bool = false, help: String) -> ControlPort {
        ControlPort(name: name, kind: kind, direction: .input, isRequired: required, help: help)
    }

    /// An output port `name` of `kind`.
    public static func output(_ name: String, _ kind: Kind, help: String) -> ControlPort {
        ControlPort(name: name, kind: kind, direction: .output, isRequired: false, help: help)
    }
}

/// One end of a control connection: a node's port, written `"id.port"`.
public struct ControlRef: Sendable, Hashable, CustomStringConvertible {
    /// The node's id.
    public var node: String
    /// The port's name.
    public var port: String

    /// The port `port` of node `node`.
    public init(node: String, port: String) {
        self.node = node
        self.port = port
    }

    /// Parses `"id.port"` (the last dot separates them); nil without one.
    public init?(parsing text: String) {
        guard let dot = text.lastIndex(of: "."), dot != text.startIndex, text.index(after: dot) != text.endIndex else { return nil }
        node = String(text[..<dot])
        port = String(text[text.index(after: dot)...])
    }

    public var description: String { "\(node).\(port)" }
}

/// A connection from a node's control output to another node's control input.
public struct ControlConnection: Sendable {
    /// The output port.
    public var from: ControlRef
    /// The input port.
    public var to: ControlRef
    /// Where the connection stands in its file.
    public var location: SourceLocation?

    /// A connection from `from` to `to`.
    public init(from: ControlRef, to: ControlRef, location: SourceLocation? = nil) {
        self.from = from
        self.to = to
        self.location = location
    }
}
