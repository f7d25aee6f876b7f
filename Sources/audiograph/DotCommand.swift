import AudioGraph
import AudioGraphCore

/// `audiograph dot GRAPH`: the graph in Graphviz dot.
enum DotCommand: Command {
    static let name = "dot"
    static let abstract = "Print a graph in Graphviz dot (pipe to `dot -Tpng`)."
    static let help = """
        USAGE: audiograph dot GRAPH.json [--source [NODE=]FILE] [--set NODE.PARAM=VALUE] [--no-formats] [--open]

        Prints the validated graph as Graphviz dot: one box per node with its non-default
        parameters, one edge per connection labelled with the audio format on it (the
        inputs are opened to learn formats; --no-formats skips that). When a device or
        input file cannot be opened here, the edges carry no formats (decided at start)
        and a comment says why; --open makes that an error instead.

        OPTIONS:
        \(GraphLoading.editOptionsHelp)
          --no-formats            Do not open inputs; edges carry no format labels.
          --open                  Require the devices and input files to open (exit 1 if not).
          -h, --help              Show this help.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var args = Arguments(arguments)
        let noFormats = args.flag("--no-formats"), mustOpen = args.flag("--open")
        let (_, graph) = try GraphLoading.load(from: &args, command: name)
        GraphLoading.printNotices(graph)
        if noFormats {
            print(GraphDot.render(graph))
        } else {
            do {
                let n = try NegotiatedGraph(graph)
                print(GraphDot.render(n.graph, formats: n.formats))
            } catch let e as EngineError where !mustOpen && GraphLoading.decidedAtStart(e) {
                print("// formats decided at start: \(VisibleText.escaped(e.description))")
                print(GraphDot.render(graph))
            }
        }
        return 0
    }
}
