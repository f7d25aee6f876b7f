import AudioGraphCore
import Testing

@testable import AudioGraph

/// Walks the built-in node list: every descriptor must be complete and self-consistent.
@Suite struct RegistryTests {
    @Test func typeNamesAreUniqueAndKebabCase() {
        let names = NodeRegistry.builtin.descriptors.map(\.type)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0.allSatisfy { $0.isLowercase || $0 == "-" } })
    }

    @Test(arguments: NodeRegistry.builtin.descriptors.map(\.type))
    func descriptorIsComplete(type: String) throws {
        let d = try #require(NodeRegistry.builtin[type])
        #expect(!d.summary.isEmpty)
        for p in d.parameters {
            #expect(!p.help.isEmpty, "\(type).\(p.name) has help")
            if let v = p.defaultValue {
                guard case .success = p.check(v) else {
                    Issue.record("\(type).\(p.name) default \(v) is outside its own range")
                    continue
                }
            }
            #expect(!(p.isRequired && p.defaultValue != nil), "\(type).\(p.name) is required and has a default")
        }
    }

    @Test func referenceListsEveryTypeAndParameter() {
        let md = NodeReference.markdown(.builtin)
        for d in NodeRegistry.builtin.descriptors {
            #expect(md.contains("### `\(d.type)`"))
            for p in d.parameters { #expect(md.contains("- `\(p.name)` ("), "\(d.type).\(p.name)") }
            for c in d.controls { #expect(md.contains("- `.\(c.name)` (\(c.direction.rawValue)"), "\(d.type).\(c.name)") }
        }
    }

    @Test func embeddersCanRegisterTheirOwnTypes() throws {
        let registry = Doubler.registry
        let g = try GraphFile.parse(Array("""
            {"nodes": [{"id": "s", "type": "test-signal"}, {"id": "d", "type": "doubler"}, {"id": "o", "type": "null-sink"}],
             "connections": [{"from": "s", "to": "d"}, {"from": "d", "to": "o"}]}
            """.utf8), file: "g.json")
        #expect(throws: Never.self) { try GraphValidator.validate(g, registry: registry).get() }
        #expect(throws: GraphErrors.self) { try GraphValidator.validate(g, registry: .builtin).get() }
    }

    /// A registered type runs in a graph like a built-in one: the engine makes it, negotiates
    /// its formats, carries its output.
    @Test func anEmbeddersTypeRunsInAGraph() async throws {
        let registry = Doubler.registry
        var g = GraphDescription(name: "custom")
        g.addNode("s", type: "test-signal", ["signal": "white", "level": -20, "rate": 16000, "duration": 0.3])
        g.addNode("d", type: "doubler")
        g.addNode("o", type: "null-sink")
        g.connect("s", to: "d")
        g.connect("d", to: "o")
        let engine = try AudioEngine(graph: g, registry: registry)
        try engine.prepare()
        let before = Locked<[Float]>([]), after = Locked<[Float]>([])
        _ = try engine.installTap(onNode: "s", bufferSize: 1024) { b in before.withLock { $0 += b.samples(0) } }
        _ = try engine.installTap(onNode: "d", bufferSize: 1024) { b in after.withLock { $0 += b.samples(0) } }
        #expect(try await engine.run() == .endOfInput)
        let x = before.withLock { $0 }, y = after.withLock { $0 }
        #expect(x.count == 4800 && y.count == 4800)
        let doubled = zip(x, y).allSatisfy { $1 == 2 * $0 }
        #expect(doubled, "the custom node's output is twice its input, sample for sample")
    }

    @Test func jsonLinesFollowTheContract() {
        #expect(EngineEvent.end(.endOfInput).jsonLine == #"{"type":"end","reason":"end-of-input"}"#)
        #expect(EngineEvent.speechStart(node: "vad", t: 0.48, decided: 0.62).jsonLine
                == #"{"type":"speech-start","t":0.48,"decided":0.62,"node":"vad"}"#)
        #expect(JSONLine.quote("a\"b\n") == #""a\"b\n""#)
    }
}

/// An embedder's node type: doubles every sample.
private final class Doubler: AudioNode {
    func process(_ io: inout ProcessIO) -> FlowStatus {
        let i = io.inputs[0], o = io.outputs[0]
        for c in 0..<i.channelCount { for k in 0..<i.frameLength { o.channel(c)[k] = 2 * i.channel(c)[k] } }
        o.frameLength = i.frameLength
        return .ok
    }

    /// The built-in types plus "doubler".
    static var registry: NodeRegistry {
        var r = NodeRegistry.builtin
        r.register(NodeDescriptor(type: "doubler", summary: "x2", role: .processor, make: { _ throws(GraphError) in Doubler() }))
        return r
    }
}
