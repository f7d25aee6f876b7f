/// Everything the engine, the graph-file reader, `validate`, `nodes` and `dot` know about a
/// node type: its name, parameters, buses and how to make one.
///
/// Each node type declares one, as GStreamer elements declare pad templates and param
/// specs. Embedders register their own in a ``NodeRegistry`` and use them in graph files.
public struct NodeDescriptor: Sendable {
    /// Where a node sits in a graph.
    public enum Role: String, Sendable {
        /// Produces audio; no inputs.
        case source
        /// Transforms audio; inputs and outputs.
        case processor
        /// Consumes audio; no outputs.
        case sink
    }

    /// The input buses of a node type.
    public enum Inputs: Sendable, Equatable {
        /// Exactly `n` buses, all required.
        case fixed(Int)
        /// 1...max buses; a connection without a bus number takes the next free one.
        case variadic(max: Int)

        /// Highest bus count.
        public var maximum: Int {
            switch self {
            case .fixed(let n): return n
            case .variadic(let m): return m
            }
        }
    }

    /// Makes a node from checked parameters; throws for cross-parameter problems.
    public typealias Factory = @Sendable (ResolvedParameters) throws(GraphError) -> any AudioNode

    /// Graph-file type name, kebab-case ("file-source").
    public var type: String
    /// One line saying what the node does.
    public var summary: String
    /// Source, processor or sink.
    public var role: Role
    /// The parameters it accepts, each with its kind, default and help.
    public var parameters: [ParameterSpec]
    /// How many input buses it has.
    public var inputs: Inputs
    /// Number of output buses.
    public var outputs: Int
    /// Whether the node is a live input (paced by a device, not by the engine).
    public var isLive: Bool
    /// Whether `--source FILE` may replace this node.
    public var isReplaceableInput: Bool
    /// Marker kinds this node puts on its outputs itself. Nodes that produce none have
    /// their input markers copied to their outputs by the engine.
    public var markers: [StreamMarker.Kind]
    /// Its control ports (text, gate, verdict), beside the audio buses.
    public var controls: [ControlPort]
    /// Makes a node from checked parameters (may refuse cross-parameter combinations).
    public var make: Factory

    /// A node type; `inputs` and `outputs` default by role (a source has no inputs, a sink
    /// no outputs, otherwise one of each).
    public init(
        type: String, summary: String, role: Role, parameters: [ParameterSpec] = [],
        inputs: Inputs? = nil, outputs: Int? = nil, isLive: Bool = false,
        isReplaceableInput: Bool = false, markers: [StreamMarker.Kind] = [], controls: [ControlPort] = [],
        make: @escaping Factory
    ) {
        self.markers = markers
        self.controls = controls
        self.type = type
        self.summary = summary
        self.role = role
        self.parameters = parameters
        self.inputs = inputs ?? (role == .source ? .fixed(0) : .fixed(1))
        self.outputs = outputs ?? (role == .sink ? 0 : 1)
        self.isLive = isLive
        self.isReplaceableInput = isReplaceableInput || isLive
        self.make = make
    }

    /// The control port called `name`, if any.
    public func control(_ name: String) -> ControlPort? { controls.first { $0.name == name } }

    /// Whether the engine copies the node's input markers to its outputs: a node with inputs
    /// that puts no markers of its own there.
    public var forwardsMarkers: Bool { markers.isEmpty && inputs.maximum > 0 }

    /// `values` with the default of every parameter not given: what a factory is handed
    /// (the validator and the test harness both fill them in here).
    public func filledWithDefaults(_ values: [String: ParameterValue]) -> [String: ParameterValue] {
        var filled = values
        for p in parameters where filled[p.name] == nil {
            if let d = p.defaultValue { filled[p.name] = d }
        }
        return filled
    }

    /// The spec of parameter `name`, if the type has one.
    public func parameter(_ name: String) -> ParameterSpec? {
        parameters.first { $0.name == name }
    }
}
