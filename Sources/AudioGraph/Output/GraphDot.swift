import AudioGraphCore
import Foundation

/// Graphviz dot for a graph: one box per node (id, type, parameters that differ from
/// the defaults), one edge per connection labelled with its format when known, and one
/// dashed, coloured edge per control connection labelled with its ports.
public enum GraphDot {
    /// Dot text for `graph`; `formats` (the negotiated formats of each node's outputs) labels the edges.
    public static func render(_ graph: ValidatedGraph, formats: [[StreamFormat]]? = nil) -> String {
        var lines = ["digraph \(JSONLine.quote(graph.description.name)) {",
                     "  rankdir=LR;",
                     "  node [shape=box, style=rounded, fontname=\"Helvetica\"];"]
        for n in graph.nodes {
            var rows = [n.id, n.descriptor.type]
            for p in n.descriptor.parameters {
                guard let v = n.parameters[p.name], v != p.defaultValue else { continue }
                rows.append("\(p.name)=\(v.description)")
            }
            let label = rows.map(labelText).joined(separator: "\\n")
            var shape = n.descriptor.role == .source ? ", shape=invhouse" : n.descriptor.role == .sink ? ", shape=house" : ""
            if n.id.contains("->") { shape += ", style=\"rounded,dashed\", color=gray40" }
            lines.append("  \(JSONLine.quote(n.id)) [label=\"\(label)\"\(shape)];")
        }
        for e in graph.edges {
            var attrs: [String] = []
            if let f = formats?[e.from][e.fromBus] { attrs.append("label=\"\(f)\"") }
            if e.fromBus != 0 { attrs.append("taillabel=\"\(e.fromBus)\"") }
            if e.toBus != 0 || graph.nodes[e.to].descriptor.inputs != .fixed(1) { attrs.append("headlabel=\"\(e.toBus)\"") }
            if !e.convert { attrs.append("style=bold") }
            let a = attrs.isEmpty ? "" : " [\(attrs.joined(separator: ", "))]"
            lines.append("  \(JSONLine.quote(graph.nodes[e.from].id)) -> \(JSONLine.quote(graph.nodes[e.to].id))\(a);")
        }
        for c in graph.controls {
            let kind = graph.nodes.first { $0.id == c.from.node }?.descriptor.control(c.from.port)?.kind ?? .text
            let ink = colour(of: kind)
            lines.append("  \(JSONLine.quote(c.from.node)) -> \(JSONLine.quote(c.to.node)) [style=dashed, color=\(ink), "
                         + "fontcolor=\(ink), constraint=false, label=\"\(c.from.port) → \(c.to.port)\"];")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    /// `s` as it goes between a label's quotes: shown as written (control characters as
    /// escapes, a backslash as a backslash), never ending the label or starting a dot escape.
    static func labelText(_ s: String) -> String {
        VisibleText.escaped(s).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// A control connection's colour, by kind (a switch: a new kind cannot go without one).
    private static func colour(of kind: ControlPort.Kind) -> String {
        switch kind {
        case .text: "darkgreen"
        case .gate: "firebrick"
        case .echo: "darkorange"
        case .verdict: "royalblue"
        }
    }
}
