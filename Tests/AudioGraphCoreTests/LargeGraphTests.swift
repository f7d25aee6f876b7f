import Synchronization
import Testing

@testable import AudioGraphCore

/// Graphs of many nodes, as a program that writes graphs makes them: validation, format
/// negotiation and the render plan walk each connection a bounded number of times (a chain of
/// 10,000 gains took 16 s to validate and 9 s more to prepare when every node looked through
/// every connection; `Tools/bench graph-size` measures it beside GStreamer), and a graph that
/// is wrong throughout lists its first problems and counts the rest.
@Suite struct LargeGraphTests {
    /// `ramp` → `n` gains → `tail` (a null sink unless given).
    static func chain(_ n: Int, frames: Int = 4096, head: (id: String, type: String)? = nil,
                      tail: String = "null-sink") -> GraphDescription {
        var g = GraphDescription(name: "chain", file: "chain.json")
        g.addNode("src", type: "ramp", ["frames": .number(Double(frames))])
        var last = "src"
        if let head {
            g.addNode(head.id, type: head.type)
            g.connect(last, to: head.id)
            last = head.id
        }
        for i in 0..<n {
            g.addNode("g\(i)", type: "gain")
            g.connect(last, to: "g\(i)")
            last = "g\(i)"
        }
        g.addNode("out", type: tail)
        g.connect(last, to: "out")
        return g
    }

    @Test func aChainOfTenThousandNodesRunsEveryFrameThroughInOrder() async throws {
        let g = Self.chain(10_000)
        let v = try GraphValidator.validate(g, registry: .testing).get()
        #expect(v.order == Array(0..<10_002), "each node after the one that feeds it")
        let (r, reason) = try await run(g, registry: .testing, tap: ("g9999", 1024))
        #expect(reason == .endOfInput)
        let buffers = r.allBuffers
        #expect(buffers.reduce(0) { $0 + $1.frames } == 4096 && buffers.first?.first == 0 && buffers.last?.last == 4095)
    }

    /// The markers a node is told come from upstream are those of every node above it, however
    /// far: here a marking node 3,000 gains up.
    @Test func markersFromFarUpstreamReachTheEndOfAChain() async throws {
        var registry = NodeRegistry.testing
        registry.register(NodeDescriptor(type: "marks-speech", summary: "Puts speech markers (tests).", role: .processor,
                                         inputs: .fixed(1), outputs: 1, markers: [.speechStart, .speechEnd],
                                         make: { _ throws(GraphError) in PassThrough() }))
        registry.register(NodeDescriptor(type: "hears-markers", summary: "Records what is upstream (tests).", role: .sink,
                                         inputs: .fixed(1),
                                         make: { _ throws(GraphError) in MarkerListener() }))
        let marked = Self.chain(3_000, head: ("vad", "marks-speech"), tail: "hears-markers")
        let engine = try AudioEngine(graph: marked, registry: registry)
        try engine.prepare()
        #expect(MarkerListener.heard.withLock { $0 } == [.speechStart, .speechEnd])
        let plain = try AudioEngine(graph: Self.chain(10, tail: "hears-markers"), registry: registry)
        try plain.prepare()
        #expect(MarkerListener.heard.withLock { $0 }.isEmpty)
    }

    /// Inputs connected without a bus take the lowest free one, around buses given explicitly.
    @Test func unnamedInputsTakeTheLowestFreeBusAroundNamedOnes() throws {
        var g = GraphDescription(name: "t")
        for s in ["a", "b", "c", "d"] { g.addNode(s, type: "test-signal") }
        g.addNode("m", type: "mixer")
        g.addNode("o", type: "null-sink")
        g.connect("a", to: "m")
        g.connect("c", to: "m:2")
        g.connect("b", to: "m")
        g.connect("d", to: "m")
        g.connect("m", to: "o")
        let v = try GraphValidator.validate(g, registry: .core).get()
        let buses = Dictionary(uniqueKeysWithValues: v.adjacency.inputs[4].map { (v.nodes[$0.from].id, $0.toBus) })
        #expect(buses == ["a": 0, "b": 1, "c": 2, "d": 3])
    }

    @Test func pastTheMostErrorsTheRestAreCounted() throws {
        var g = GraphDescription(name: "t", file: "t.json")
        g.addNode("src", type: "test-signal")
        for i in 0..<200 { g.addNode("n\(i)", type: "gainz") }
        let errors = try #require(validationErrors(g))
        #expect(errors.errors.count == GraphValidator.mostErrors && errors.unlisted == 200 - GraphValidator.mostErrors)
        #expect(errors.errors.allSatisfy { $0.code == .unknownNodeType && $0.suggestion?.contains("\"gain\"") == true })
        #expect(errors.lines.count == GraphValidator.mostErrors + 1)
        #expect(errors.lines.last == "(150 more problems in t.json, not listed)")
        // Control connections count against the same limit.
        var controls = GraphDescription(name: "t", file: "t.json")
        controls.addNode("src", type: "test-signal")
        controls.addNode("out", type: "null-sink")
        controls.connect("src", to: "out")
        controls.controls = []
        // Each connection names two unknown nodes: two problems.
        for i in 0..<60 { controls.connectControl("nobody\(i).text", to: "noone\(i).text") }
        let unknown = try #require(validationErrors(controls))
        #expect(unknown.errors.count == GraphValidator.mostErrors && unknown.unlisted == 120 - GraphValidator.mostErrors,
                "\(unknown.errors.count) listed, \(unknown.unlisted) not")
        #expect(unknown.errors.allSatisfy { $0.code == .unknownNode })
        // A few problems are all listed, with no count.
        var few = GraphDescription(name: "t", file: "t.json")
        few.addNode("src", type: "test-signal")
        few.addNode("x", type: "gainz")
        let one = try #require(validationErrors(few))
        #expect(one.unlisted == 0 && one.lines.count == 1)
    }
}

/// The errors of a graph that does not validate (nil if it does).
private func validationErrors(_ g: GraphDescription) -> GraphErrors? {
    if case .failure(let e) = GraphValidator.validate(g, registry: .core) { return e }
    return nil
}

/// Copies its input to its output (a marking node's stand-in).
private final class PassThrough: AudioNode {
    func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] { inputs }
    func process(_ io: inout ProcessIO) -> FlowStatus {
        let n = io.inputs[0].frameLength
        io.outputs[0].copyFrames(from: io.inputs[0], count: n)
        io.outputs[0].frameLength = n
        return io.inputsEnded ? .endOfStream : .ok
    }
}

/// Records the markers its prepare context says come from upstream.
private final class MarkerListener: AudioNode {
    static let heard = Mutex<[StreamMarker.Kind]>([])
    func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] { [] }
    func prepare(_ context: PrepareContext) throws(EngineError) {
        Self.heard.withLock { $0 = context.upstreamMarkers.sorted { $0.rawValue < $1.rawValue } }
    }
    func process(_ io: inout ProcessIO) -> FlowStatus { io.inputsEnded ? .endOfStream : .ok }
}
