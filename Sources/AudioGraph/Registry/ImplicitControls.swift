import AudioGraphCore

/// The control links graphs of the first releases relied on without saying them, made
/// explicit for a graph that has no `"controls"` (a graph file of those releases, or one
/// built in code without ``GraphDescription/connectControl(_:to:)``):
///
/// - every recognizer's `results` → a `speech-synth`'s `text`, when the synth replies
///   (`reply`, limited to `reply-to` if set) or the graph is an assistant (a recognizer
///   with a `wake-word`: its states play the earcons);
/// - what is played → the listeners: a gating synth's `playing` (and every `pulse-sink`'s,
///   which tells how late sounds play) → each `vad`'s and recognizer's `gate`;
/// - every recognizer with a `grammar` → each `end-of-speech` node's `verdict`.
///
/// `NodeRegistry.builtin` applies it (``NodeRegistry/implicitControls``): Core knows no node
/// type by name, and a registry without the speech nodes adds nothing.
package enum ImplicitControls {
    /// The links `nodes` relied on.
    package static func links(_ nodes: [ValidatedGraph.Node]) -> [ControlConnection] {
        func ids(_ type: String) -> [ValidatedGraph.Node] { nodes.filter { $0.descriptor.type == type } }
        func link(_ from: String, _ out: String, _ to: String, _ input: String) -> ControlConnection {
            ControlConnection(from: ControlRef(node: from, port: out), to: ControlRef(node: to, port: input))
        }
        let recognizers = ids("recognizer"), synths = ids("speech-synth")
        let assistant = recognizers.contains { $0.parameters.string("wake-word") != nil }
        var links: [ControlConnection] = []
        for s in synths where s.parameters.string("reply") != nil || assistant {
            let only = s.parameters.string("reply-to")
            for r in recognizers where only == nil || only == r.id { links.append(link(r.id, "results", s.id, "text")) }
        }
        let gating = synths.filter { $0.parameters.bool("gate") && !$0.parameters.bool("barge-in") }
        if !gating.isEmpty {
            let players = gating + ids("pulse-sink")
            for listener in ids("vad") + recognizers {
                for p in players { links.append(link(p.id, "playing", listener.id, "gate")) }
            }
        }
        for r in recognizers where r.parameters.string("grammar") != nil {
            for e in ids("end-of-speech") { links.append(link(r.id, "verdict", e.id, "verdict")) }
        }
        return links
    }
}
