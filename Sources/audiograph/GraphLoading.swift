import AudioGraph
import AudioGraphCore
import Foundation

/// Loads a graph file, applies `--server`, `--source`, `--sink` and `--set`, and validates it.
enum GraphLoading {
    /// `checkSources`: a `--source` file that is missing or a folder is reported at its
    /// argument (a run needs it; `validate` and `dot` do not).
    /// `standardInput`: the format of the WAV audio on standard input, for `--source -` (the
    /// input becomes a stream-source of it; without it, of 16 kHz mono, as `validate` shows it).
    static func load(_ path: String, sources: [String], sinks: [String] = [], sets: [String], server: String? = nil,
                     serverCertificates: String? = nil, registry: NodeRegistry = .builtin, checkSources: Bool = false,
                     standardInput: StreamFormat? = nil) throws -> ValidatedGraph {
        guard let file = GraphLocator.find(path) else {
            throw GraphErrors([GraphError(
                .syntax, "no such graph file, and no graph of that name in \(GraphLocator.folders.joined(separator: ", "))",
                file: path, suggestion: "`audiograph run --list` shows the graphs found by name")])
        }
        var graph = try GraphFile.load(file, registry: registry)
        if let server { try GraphEdits.server(server, in: &graph) }
        if let serverCertificates { try GraphEdits.serverCertificates(serverCertificates, in: &graph) }
        try checkTargets(sources, option: "--source", kind: "inputs", in: graph, candidates: GraphEdits.inputs(of: graph, registry: registry))
        try checkTargets(sinks, option: "--sink", kind: "playback nodes", in: graph, candidates: GraphEdits.playbackNodes(of: graph))
        for s in sources {
            let (node, file) = GraphEdits.splitTarget(s, graph: graph)
            if file == "-" {
                try GraphEdits.standardInput(rate: Int(standardInput?.sampleRate ?? 16000), channels: standardInput?.channelCount ?? 1,
                                             node: node, in: &graph, registry: registry)
            } else {
                try GraphEdits.source(file, node: node, in: &graph, registry: registry)
            }
        }
        for s in sinks {
            let (node, file) = GraphEdits.splitTarget(s, graph: graph)
            try GraphEdits.sink(file, node: node, in: &graph)
        }
        for s in sets { try GraphEdits.set(s, in: &graph, registry: registry) }
        let validated: ValidatedGraph
        switch GraphValidator.validate(graph, registry: registry) {
        case .success(let g): validated = g
        case .failure(let e): throw e
        }
        if checkSources {
            for s in sources {
                let (_, file) = GraphEdits.splitTarget(s, graph: graph)
                if file == "-" { continue }
                // Said here in the command line's words; what else a file source refuses
                // (a pipe, a link loop) its node says.
                switch PathKind(ParameterSpec.expandingHome(file)) {
                case .missing:
                    throw EngineError(.audioFile, "--source \(s): no such file")
                case .directory:
                    throw EngineError(.audioFile, "--source \(s): is a directory, not a sound file",
                                      suggestion: "`audiograph batch \(path) \(file)` runs the graph on every sound file in it")
                default: break
                }
            }
        }
        return validated
    }

    /// `NODE=FILE` whose NODE could be a node id but is none of the graph's: refused, naming
    /// the nodes it could be, rather than taken as a file name with `=` in it (a missing file,
    /// or a sink written under that name). Such a file is named with a folder: `./take=2.wav`.
    private static func checkTargets(_ arguments: [String], option: String, kind: String, in graph: GraphDescription,
                                     candidates: [Int]) throws {
        for argument in arguments {
            guard let eq = argument.firstIndex(of: "=") else { continue }
            let id = String(argument[..<eq])
            guard NodeID.isWellFormed(id), graph.index(of: id) == nil else { continue }
            let ids = candidates.map { graph.nodes[$0].id }
            throw UsageError("\(option) \(argument): the graph has no node \"\(id)\""
                             + (ids.isEmpty ? "" : " (its \(kind): \(ids.joined(separator: ", ")))")
                             + "; a file whose name has \"=\" in it: ./\(argument)")
        }
    }

    /// The graph a one-graph command names (`validate`, `dot`, `tune`): `--source` and
    /// `--set` edits, the graph file, nothing else left over. The command takes its own
    /// options from `args` first. Returns the path as given and the validated graph.
    static func load(from args: inout Arguments, command: String) throws -> (path: String, graph: ValidatedGraph) {
        let sources = try args.options("--source"), sets = try args.options("--set")
        let path = try args.positional("graph file")
        try args.finish(command)
        return (path, try load(path, sources: sources, sets: sets))
    }

    /// Help lines for the edits ``load(from:command:)`` takes.
    static let editOptionsHelp = """
          --source [NODE=]FILE    Replace the live input (or NODE) with a file source.
          --set NODE.PARAM=VALUE  Override a parameter (repeatable).
        """

    /// Prints what validation added to a graph that should say it itself (one line each).
    static func printNotices(_ graph: ValidatedGraph) {
        for n in graph.notices { StandardStreams.writeError("audiograph: notice: \(VisibleText.escaped(n))\n") }
    }

    /// Whether a failure to open a node is one only the run itself can settle (a device, a
    /// sound server, an input file that is not here): `validate` and `dot` then show the
    /// graph with its formats decided at start. A damaged model is not such a failure.
    static func decidedAtStart(_ e: EngineError) -> Bool {
        [.device, .server, .audioFile, .io].contains(e.code)
    }
}
