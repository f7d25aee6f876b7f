import AudioGraphCore

extension NodeRegistry {
    /// Every node type that ships with audiograph. A new node type is its file, one line
    /// here, and tests.
    public static let builtin: NodeRegistry = {
        var r = NodeRegistry.core
        _ = r
        return r
    }()
}
