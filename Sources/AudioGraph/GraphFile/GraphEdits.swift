import AudioGraphCore

/// The command line's edits to a loaded graph, applied before validation:
/// `--set NODE.PARAM=VALUE` and `--source FILE` / `--source NODE=FILE`.
public enum GraphEdits {
    /// Applies `NODE.PARAM=VALUE`. The value is typed by the parameter's spec.
    public static func set(_ assignment: String, in graph: inout GraphDescription, registry: NodeRegistry) throws(GraphError) {
        guard let eq = assignment.firstIndex(of: "="),
              let dot = assignment[..<eq].firstIndex(of: ".")
        else {
            throw GraphError(.badOverride, "--set \(assignment): expected NODE.PARAM=VALUE", file: graph.file)
        }
        let nodeId = String(assignment[..<dot])
        let param = String(assignment[assignment.index(after: dot)..<eq])
        let text = String(assignment[assignment.index(after: eq)...])
        guard let i = graph.index(of: nodeId) else {
            throw GraphError(.unknownNode, "--set \(assignment): no node with this id (nodes: \(graph.nodes.map(\.id).joined(separator: ", ")))",
                             file: graph.file, node: nodeId)
        }
        // Checked here, so a bad value is reported at the argument that gave it, not at the
        // graph file's line for the node.
        let type = graph.nodes[i].type
        if let descriptor = registry[type] {
            guard let spec = descriptor.parameter(param) else {
                let names = descriptor.parameters.map(\.name)
                let near = GraphValidator.closest(param, among: names)
                throw GraphError(.unknownParameter, "--set \(assignment): node \"\(nodeId)\" (\(type)) has no parameter \"\(param)\"",
                                 suggestion: near.map { "did you mean \"\($0)\"?" } ?? "known: \(names.joined(separator: ", "))")
            }
            let value = spec.parse(text: text)
            if case .failure(let why) = spec.check(value) {
                throw GraphError(.badParameterValue, "--set \(assignment): node \"\(nodeId)\": parameter \"\(param)\": \(why.message)")
            }
            graph.nodes[i].params[param] = value
        } else {
            graph.nodes[i].params[param] = .string(text)  // the node type itself is reported by validation
        }
        graph.nodes[i].paramLocations[param] = nil
    }

    /// Replaces a live input with a `file-source` reading `path`. `target` names the node;
    /// when nil the graph must have exactly one replaceable input.
    public static func source(_ path: String, node target: String?, in graph: inout GraphDescription,
                              registry: NodeRegistry) throws(GraphError) {
        try replaceInput(path, node: target, in: &graph, registry: registry, with: "file-source", params: nil)
    }

    /// Replaces a live input, as ``source(_:node:in:registry:)`` does, with a `stream-source`
    /// of `rate` and `channels` for audio a command reads from its standard input
    /// (`--source -`). Returns the id of the node to push into.
    @discardableResult
    public static func standardInput(rate: Int, channels: Int, node target: String?, in graph: inout GraphDescription,
                                     registry: NodeRegistry) throws(GraphError) -> String {
        try replaceInput("-", node: target, in: &graph, registry: registry, with: "stream-source",
                         params: ["rate": .number(Double(rate)), "channels": .number(Double(channels))])
    }

    @discardableResult
    private static func replaceInput(_ path: String, node target: String?, in graph: inout GraphDescription,
                                     registry: NodeRegistry, with type: String,
                                     params: [String: ParameterValue]?) throws(GraphError) -> String {
        let candidates = inputs(of: graph, registry: registry)
        let live = candidates.filter { registry[graph.nodes[$0].type]?.isLive == true }
        let ids = candidates.map { graph.nodes[$0].id }.joined(separator: ", ")
        let pick = live.count == 1 ? live : candidates
        try replace("--source", path, node: target, in: &graph, with: type, kind: "an input",
                    fits: { registry[$0.type]?.role == .source }, candidates: pick,
                    none: "--source: the graph has no input node to replace",
                    several: "--source: the graph has several inputs (\(ids)); use --source NODE=FILE", params: params)
        return target ?? graph.nodes[pick[0]].id
    }

    /// Replaces the graph's input (as `--source` does) with a `stream-source` of `rate` and
    /// `channels`, for audio that a program pushes in (a server connection). Returns the id
    /// of the node to push into.
    @discardableResult
    public static func stream(rate: Int, channels: Int, in graph: inout GraphDescription,
                              registry: NodeRegistry) throws(GraphError) -> String {
        let candidates = graph.nodes.indices.filter { registry[graph.nodes[$0].type]?.isReplaceableInput == true }
        let live = candidates.filter { registry[graph.nodes[$0].type]?.isLive == true }
        let ids = candidates.map { graph.nodes[$0].id }.joined(separator: ", ")
        let pick = live.count == 1 ? live : candidates
        try replace("stream", "", node: nil, in: &graph, with: "stream-source", kind: "an input",
                    fits: { registry[$0.type]?.role == .source }, candidates: pick,
                    none: "the graph has no input node to stream audio into",
                    several: "the graph has several inputs (\(ids)) to stream audio into",
                    params: ["rate": .number(Double(rate)), "channels": .number(Double(channels))])
        return graph.nodes[pick[0]].id
    }

    /// Points the graph's speech at the speech server at `url` (`run --server`), SpeechKit's
    /// architecture: each `recognizer` becomes a `remote-recognizer` keeping its id, its
    /// `partials`, `alternatives`, `grammar`, `wake-word` and `command-timeout`, recognising
    /// with the server's graph of the same name as this one (`dictation`, `transcribe`,
    /// `command`; `command` for a grammar), else `dictation`; each `speech-synth` becomes a
    /// `remote-synth` with its parameters. Their `results`, `text` and gate links stay; a
    /// recognizer's `verdict` and `barge-in` links go (the server's end of speech has its own;
    /// a remote recognizer does not take barge-ins as commands). Remote nodes
    /// already in the graph are pointed at `url`. A key-phrase recognizer is refused.
    public static func server(_ url: String, in graph: inout GraphDescription) throws(GraphError) {
        let recognizers = graph.nodes.indices.filter { graph.nodes[$0].type == "recognizer" }
        let remote = graph.nodes.indices.filter { ["remote-recognizer", "remote-synth"].contains(graph.nodes[$0].type) }
        guard !recognizers.isEmpty || !remote.isEmpty else {
            throw GraphError(.badOverride, "--server: the graph has no recognizer to do remotely", file: graph.file)
        }
        for i in remote { graph.nodes[i].params["server"] = .string(url) }
        let serverGraph = ["dictation", "transcribe", "command"].contains(graph.name) ? graph.name : "dictation"
        for i in recognizers {
            let old = graph.nodes[i]
            if old.params["keyphrase"] != nil {
                throw GraphError(.badOverride, "--server: node \"\(old.id)\" spots a keyphrase, which a remote recognizer does not do; "
                                 + "run this graph locally, or use wake-word", file: graph.file, node: old.id)
            }
            var params: [String: ParameterValue] = ["server": .string(url), "graph": .string(old.params["grammar"] != nil ? "command" : serverGraph)]
            for k in ["partials", "alternatives", "grammar", "wake-word", "command-timeout"] { if let v = old.params[k] { params[k] = v } }
            graph.nodes[i] = NodeSpec(id: old.id, type: "remote-recognizer", params: params, location: old.location)
            graph.controls?.removeAll { $0.from == ControlRef(node: old.id, port: "verdict") || $0.to == ControlRef(node: old.id, port: "barge-in") }
        }
        for i in graph.nodes.indices where graph.nodes[i].type == "speech-synth" {
            let old = graph.nodes[i]
            var params = old.params
            params["server"] = .string(url)
            graph.nodes[i] = NodeSpec(id: old.id, type: "remote-synth", params: params, location: old.location)
        }
    }

    /// Has every remote node (after ``server(_:in:)``) trust the certificates in the PEM file
    /// at `path` for its `wss://` server (`run --server-ca`): a server with a certificate of its
    /// own or of a private authority.
    public static func serverCertificates(_ path: String, in graph: inout GraphDescription) throws(GraphError) {
        let remote = graph.nodes.indices.filter { ["remote-recognizer", "remote-synth"].contains(graph.nodes[$0].type) }
        guard !remote.isEmpty else {
            throw GraphError(.badOverride, "--server-ca: the graph has nothing remote (give --server wss://HOST:PORT too)", file: graph.file)
        }
        for i in remote { graph.nodes[i].params["ca"] = .string(path) }
    }

    /// The indices of the nodes `--source` can replace (sources: devices, files, streams).
    public static func inputs(of graph: GraphDescription, registry: NodeRegistry) -> [Int] {
        graph.nodes.indices.filter { registry[graph.nodes[$0].type]?.isReplaceableInput == true }
    }

    /// The indices of the nodes `--sink` can replace (`pulse-sink`).
    public static func playbackNodes(of graph: GraphDescription) -> [Int] {
        graph.nodes.indices.filter { graph.nodes[$0].type == "pulse-sink" }
    }

    /// Replaces a playback node (`pulse-sink`) with a `wav-sink` writing `path`, so a graph
    /// that speaks can run offline. `target` names the node; when nil the graph must have
    /// exactly one playback node.
    public static func sink(_ path: String, node target: String?, in graph: inout GraphDescription) throws(GraphError) {
        let playback = playbackNodes(of: graph)
        let ids = playback.map { graph.nodes[$0].id }.joined(separator: ", ")
        try replace("--sink", path, node: target, in: &graph, with: "wav-sink", kind: "a playback node",
                    fits: { $0.type == "pulse-sink" }, candidates: playback,
                    none: "--sink: the graph has no playback node (pulse-sink) to replace",
                    several: "--sink: the graph has several playback nodes (\(ids)); use --sink NODE=FILE")
    }

    /// Replaces node `target` (which must fit), or the only one of `candidates`, with a node of
    /// `type` whose `path` is `path`, keeping its id (its connections stay).
    private static func replace(_ option: String, _ path: String, node target: String?, in graph: inout GraphDescription,
                                with type: String, kind: String, fits: (NodeSpec) -> Bool, candidates: [Int],
                                none: String, several: String, params: [String: ParameterValue]? = nil) throws(GraphError) {
        let index: Int
        if let target {
            guard let i = graph.index(of: target) else {
                throw GraphError(.unknownNode, "\(option) \(target)=\(path): no node with this id", file: graph.file, node: target)
            }
            guard fits(graph.nodes[i]) else {
                throw GraphError(.badOverride, "\(option): node is a \(graph.nodes[i].type), not \(kind)", file: graph.file, node: target)
            }
            index = i
        } else {
            guard candidates.count == 1 else {
                throw GraphError(.badOverride, candidates.isEmpty ? none : several, file: graph.file)
            }
            index = candidates[0]
        }
        let old = graph.nodes[index]
        graph.nodes[index] = NodeSpec(id: old.id, type: type, params: params ?? ["path": .string(path)], location: old.location)
        // A file has none of the device's control ports (a pulse-sink's `playing`): its links go.
        graph.controls?.removeAll { $0.from.node == old.id || $0.to.node == old.id }
    }

    /// Splits a `--source` or `--sink` argument into (node, file): "mic=a.wav" or "a.wav".
    public static func splitTarget(_ argument: String, graph: GraphDescription) -> (String?, String) {
        if let eq = argument.firstIndex(of: "=") {
            let id = String(argument[..<eq])
            if graph.index(of: id) != nil { return (id, String(argument[argument.index(after: eq)...])) }
        }
        return (nil, argument)
    }
}
