import AudioGraph
import AudioGraphCore

/// `audiograph nodes`: the node reference, from the registry.
enum NodesCommand: Command {
    static let name = "nodes"
    static let abstract = "List every node type with its parameters, defaults and buses."
    static let help = """
        USAGE: audiograph nodes [--markdown | --json]

        Lists every node type a graph file may use, with its parameters (type, range,
        default, unit) and its input and output buses.

        OPTIONS:
          --markdown   Print the README's node reference (markdown tables).
          --json       One JSON object per node type.
          -h, --help   Show this help.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var args = Arguments(arguments)
        let markdown = args.flag("--markdown"), json = args.flag("--json")
        try args.finish(name)
        if markdown {
            print(NodeReference.markdown(.builtin))
        } else if json {
            for d in NodeRegistry.builtin.descriptors {
                var j = JSONLine()
                j.add("type", d.type)
                j.add("role", d.role.rawValue)
                j.add("summary", d.summary)
                j.add("inputs", d.inputs.maximum)
                j.add("outputs", d.outputs)
                let params = d.parameters.map { p -> String in
                    var pj = JSONLine()
                    pj.add("name", p.name)
                    pj.add("kind", p.kindName)
                    pj.add("accepts", p.kindDescription)
                    pj.add("required", p.isRequired)
                    if let v = p.defaultValue { pj.add("default", raw: v.description) }
                    if let u = p.unit { pj.add("unit", u) }
                    pj.add("help", p.help)
                    return pj.text
                }
                j.add("parameters", raw: "[" + params.joined(separator: ",") + "]")
                print(j.text)
            }
        } else {
            print(NodeReference.text(.builtin), terminator: "")
        }
        return 0
    }
}
