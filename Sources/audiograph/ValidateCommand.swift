import AudioGraph
import AudioGraphCore

/// `audiograph validate GRAPH`: checks a graph without running it.
enum ValidateCommand: Command {
    static let name = "validate"
    static let abstract = "Check a graph file without running it."
    static let help = """
        USAGE: audiograph validate GRAPH.json [--source [NODE=]FILE] [--set NODE.PARAM=VALUE] [--open]

        Checks the file's JSON, node types, parameters, connections and cycles, reporting
        every problem at once (file:line:column: node: parameter: what is wrong; past 50,
        how many more). Then
        opens the inputs to learn their formats and checks that connected nodes agree,
        without creating output files or starting devices. Prints the formats on success.
        When a device or an input file cannot be opened here (no sound server, an example
        input that does not exist), the graph is still valid: its formats are decided at
        start, and it says so (exit 0).

        OPTIONS:
        \(GraphLoading.editOptionsHelp)
          --open                  Require the devices and input files to open (exit 1 if not).
          -h, --help              Show this help.
        """

    /// "1 node", "2 connections".
    static func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    static func run(_ arguments: [String]) throws -> Int32 {
        var args = Arguments(arguments)
        let mustOpen = args.flag("--open")
        let (path, graph) = try GraphLoading.load(from: &args, command: name)
        GraphLoading.printNotices(graph)
        let negotiated: NegotiatedGraph
        do {
            negotiated = try NegotiatedGraph(graph)
        } catch let e as EngineError where !mustOpen && GraphLoading.decidedAtStart(e) {
            say("\(path): valid graph \"\(graph.description.name)\": \(counted(graph.nodes.count, "node")), \(counted(graph.edges.count, "connection"))")
            say("  formats and conversions: decided at start (\(e.description))")
            for n in graph.nodes { say("  \(n.id) (\(n.descriptor.type))") }
            return 0
        }
        say("\(path): valid graph \"\(graph.description.name)\": \(counted(graph.nodes.count, "node")), \(counted(graph.edges.count, "connection"))")
        for c in negotiated.insertions {
            say("  inserted \(c.type) \"\(c.id)\": \(c.conversion)")
        }
        for i in negotiated.graph.order {
            let n = negotiated.graph.nodes[i]
            let outs = negotiated.formats[i].map(\.description).joined(separator: ", ")
            say("  \(n.id) (\(n.descriptor.type))" + (outs.isEmpty ? "" : " -> \(outs)"))
        }
        return 0
    }

    /// Prints `line` with any control characters from the graph (its name, paths) made visible.
    private static func say(_ line: String) { print(VisibleText.escaped(line)) }
}
