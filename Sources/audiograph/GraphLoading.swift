import AudioGraph
import AudioGraphCore

/// Loads a graph file, applies `--source` and `--set`, and validates it.
enum GraphLoading {
    static func load(_ path: String, sources: [String], sets: [String],
                     registry: NodeRegistry = .builtin) throws -> ValidatedGraph {
        var graph = try GraphFile.load(path)
        for s in sources {
            let (node, file) = GraphEdits.splitSource(s, graph: graph)
            try GraphEdits.source(file, node: node, in: &graph, registry: registry)
        }
        for s in sets { try GraphEdits.set(s, in: &graph, registry: registry) }
        switch GraphValidator.validate(graph, registry: registry) {
        case .success(let g): return g
        case .failure(let e): throw e
        }
    }
}
