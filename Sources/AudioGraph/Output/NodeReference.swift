import AudioGraphCore

/// The node reference (`audiograph nodes`, the README's table), generated from the
/// registry's descriptors so it cannot drift from what the engine accepts.
public enum NodeReference {
    /// Plain text for a terminal.
    public static func text(_ registry: NodeRegistry) -> String {
        var out: [String] = []
        for d in registry.descriptors {
            out.append("\(d.type)  (\(d.role.rawValue); \(buses(d)))")
            out.append("  \(d.summary)")
            for p in d.parameters {
                var line = "    \(p.name)"
                line += String(repeating: " ", count: max(1, 20 - line.count))
                line += "\(p.kindDescription)"
                if p.isRequired { line += ", required" }
                if let v = p.defaultValue { line += ", default \(v)" }
                if let u = p.unit { line += " [\(u)]" }
                line += " — \(p.help)"
                out.append(line)
            }
            for c in d.controls {
                var line = "    .\(c.name)"
                line += String(repeating: " ", count: max(1, 20 - line.count))
                line += "control \(c.direction.rawValue), \(c.kind.rawValue)" + (c.isRequired ? ", required" : "") + " — \(c.help)"
                out.append(line)
            }
            out.append("")
        }
        return out.joined(separator: "\n")
    }

    /// A markdown section per node type: its parameters and control ports as lists.
    public static func markdown(_ registry: NodeRegistry) -> String {
        var out: [String] = []
        for d in registry.descriptors {
            out.append("### `\(d.type)`")
            out.append("")
            out.append("\(d.summary) *\(d.role.rawValue.capitalized); \(buses(d)).*")
            out.append("")
            if d.parameters.isEmpty {
                out.append("No parameters.")
            } else {
                // Lists, not tables: each parameter's help reads as prose, at any length.
                for p in d.parameters {
                    var facts = [p.kindDescription]
                    if p.isRequired { facts.append("**required**") }
                    if let v = p.defaultValue { facts.append("default `\(v)`") }
                    if let u = p.unit { facts.append(u) }
                    out.append("- `\(p.name)` (\(facts.joined(separator: ", "))): \(p.help)")
                }
            }
            if !d.controls.isEmpty {
                out.append("")
                out.append("Control ports:")
                out.append("")
                for c in d.controls {
                    out.append("- `.\(c.name)` (\(c.direction.rawValue)\(c.isRequired ? ", required" : ""), \(c.kind.rawValue)): \(c.help)")
                }
            }
            out.append("")
        }
        return out.joined(separator: "\n")
    }

    /// "inputs 1, outputs 1", "inputs 1-16, outputs 1".
    static func buses(_ d: NodeDescriptor) -> String {
        let inputs: String
        switch d.inputs {
        case .fixed(let n): inputs = "\(n)"
        case .variadic(let m): inputs = "1-\(m)"
        }
        return "inputs \(inputs), outputs \(d.outputs)"
    }
}
