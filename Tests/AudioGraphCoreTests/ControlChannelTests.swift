import Testing

@testable import AudioGraphCore

/// What control connections carry: one channel per group of connected nodes, made by the
/// first to ask; a node outside every group of a kind gets its own. Core knows nothing of
/// the channel's contents (a test type here; the speech modules have theirs).
@Suite struct ControlChannelTests {
    final class Counter: ControlChannel, @unchecked Sendable {
        var count = 0
        init(renderReady: Readiness) {}
    }

    static var registry: NodeRegistry {
        var r = NodeRegistry.core
        r.register(NodeDescriptor(type: "player", summary: "Plays (tests).", role: .source,
                                  controls: [.output("playing", .gate, help: "what it plays")],
                                  make: { _ throws(GraphError) in NullSinkStandIn() }))
        r.register(NodeDescriptor(type: "listener", summary: "Listens (tests).", role: .sink,
                                  controls: [.input("gate", .gate, help: "what it leaves out")],
                                  make: { _ throws(GraphError) in NullSinkStandIn() }))
        return r
    }

    @Test func connectedNodesShareOneChannelAndOthersHaveTheirOwn() throws {
        var g = GraphDescription(name: "t")
        g.addNode("p", type: "player"); g.addNode("a", type: "listener"); g.addNode("b", type: "listener")
        g.addNode("q", type: "player"); g.addNode("c", type: "listener")
        g.connect("p", to: "a"); g.connect("q", to: "b"); g.connect("q", to: "c")
        // p and q both gate a; b and c are connected by audio only.
        g.controls = []
        g.connectControl("p.playing", to: "a.gate")
        g.connectControl("q.playing", to: "a.gate")
        let v = try GraphValidator.validate(g, registry: Self.registry).get()
        let links = ControlLinks(v)
        let ready = Readiness()
        let p: Counter = links.channel(.gate, of: "p", renderReady: ready)
        let a: Counter = links.channel(.gate, of: "a", renderReady: ready)
        let q: Counter = links.channel(.gate, of: "q", renderReady: ready)
        let b: Counter = links.channel(.gate, of: "b", renderReady: ready)
        let c: Counter = links.channel(.gate, of: "c", renderReady: ready)
        #expect(p === a && q === a, "p, q and a are joined by gate connections")
        #expect(b !== a && c !== a && b !== c, "unconnected listeners hear nothing the others do")
        // A kind the node has no connection of: its own, every time it asks.
        let v1: Counter = links.channel(.verdict, of: "a", renderReady: ready)
        let v2: Counter = links.channel(.verdict, of: "a", renderReady: ready)
        #expect(v1 !== v2 && v1 !== a)
        #expect(links.sources(of: "a")["gate"] == ["p", "q"])
    }

    @Test func aRegistryWithoutARuleAddsNoImplicitLinks() throws {
        var g = GraphDescription(name: "t")
        g.addNode("p", type: "player"); g.addNode("a", type: "listener")
        g.connect("p", to: "a")
        let v = try GraphValidator.validate(g, registry: Self.registry).get()
        #expect(v.controls.isEmpty && v.notices.isEmpty)
        var r = Self.registry
        r.implicitControls = { _ in [ControlConnection(from: ControlRef(node: "p", port: "playing"), to: ControlRef(node: "a", port: "gate"))] }
        let w = try GraphValidator.validate(g, registry: r).get()
        #expect(w.controls.map { "\($0.from)->\($0.to)" } == ["p.playing->a.gate"] && w.notices.count == 1)
    }
}
