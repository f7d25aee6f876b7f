/// The node types a graph may use, by graph-file type name.
///
/// `NodeRegistry.core` holds the C-free types of this module; the `AudioGraph` module's
/// `NodeRegistry.builtin` adds DSP, PulseAudio and speech nodes. Embedders copy one and
/// `register` their own types, then use them in graph files like any other.
public struct NodeRegistry: Sendable {
    private var table: [String: NodeDescriptor] = [:]
    /// Descriptors in registration order (documentation order).
    public private(set) var descriptors: [NodeDescriptor] = []

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

    /// The C-free node types that live in this module.
    public static let core = NodeRegistry([
        FileSource.descriptor, TestSignalSource.descriptor, Gain.descriptor, Mixer.descriptor,
        LevelMeter.descriptor, WAVSink.descriptor, NullSink.descriptor,
    ])
}
