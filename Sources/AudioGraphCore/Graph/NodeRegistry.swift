/// The node types a graph may use, by graph-file type name.
///
/// `NodeRegistry.core` holds the C-free types of this module; the `AudioGraph` module's
/// `NodeRegistry.builtin` adds DSP, PulseAudio and speech nodes. Embedders copy one and
/// `register` their own types, then use them in graph files like any other.
public struct NodeRegistry: Sendable {
    private var table: [String: NodeDescriptor] = [:]
    /// Descriptors in registration order (documentation order).
    public private(set) var descriptors: [NodeDescriptor] = []

    /// Node types (with parameters) that convert one format into another, in the order
    /// they are inserted on a connection whose ends disagree. Without one, a mismatch is an
    /// error. `NodeRegistry.core` converts channels only; `.builtin` adds rates.
    public var converter: ConverterFactory? = NodeRegistry.channelConverter

    /// The control connections a graph without `"controls"` relied on (graph files of the
    /// first releases), added with one notice; nil adds none. `NodeRegistry.builtin` adds the
    /// assistant's links between its speech nodes.
    package var implicitControls: (@Sendable ([ValidatedGraph.Node]) -> [ControlConnection])?

    /// A registry of `descriptors` (later ones replace earlier ones of the same type).
    public init(_ descriptors: [NodeDescriptor] = []) {
        for d in descriptors { register(d) }
    }

    /// Adds `descriptor`, replacing any earlier type of the same name.
    public mutating func register(_ descriptor: NodeDescriptor) {
        if table[descriptor.type] != nil {
            descriptors.removeAll { $0.type == descriptor.type }
        }
        table[descriptor.type] = descriptor
        descriptors.append(descriptor)
    }

    /// The descriptor for graph-file type `type`.
    public subscript(type: String) -> NodeDescriptor? { table[type] }

    /// Channel conversion with a `mixer` (rates must already agree).
    public static let channelConverter: ConverterFactory = { from, to in
        from.channelCount == to.channelCount ? []
            : [ConversionStep(descriptor: Mixer.descriptor, params: ["channels": .number(Double(to.channelCount))])]
    }

    /// The C-free node types that live in this module.
    public static let core = NodeRegistry([
        FileSource.descriptor, StreamSource.descriptor, TestSignalSource.descriptor, Gain.descriptor, Mixer.descriptor,
        LevelMeter.descriptor, WAVSink.descriptor, NullSink.descriptor,
    ])
}

/// One node the engine inserts to convert a connection's format.
public struct ConversionStep: Sendable {
    /// The node type inserted.
    public var descriptor: NodeDescriptor
    /// Its parameters.
    public var params: [String: ParameterValue]
    /// A node of `descriptor` with `params`.
    public init(descriptor: NodeDescriptor, params: [String: ParameterValue]) {
        self.descriptor = descriptor
        self.params = params
    }
}

/// The conversion steps from one format to another, in order ([] when none is needed).
public typealias ConverterFactory = @Sendable (_ from: StreamFormat, _ to: StreamFormat) -> [ConversionStep]
