import Testing

@testable import AudioGraphCore

/// A table of bad graphs, each with the error code and the words its message must carry.
@Suite struct GraphValidatorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let graph: GraphDescription
        let code: GraphError.Code
        let words: [String]
        var testDescription: String { name }
    }

    static func graph(_ build: (inout GraphDescription) -> Void) -> GraphDescription {
        var g = GraphDescription(name: "t", file: "t.json")
        build(&g)
        return g
    }

    static let cases: [Case] = [
        Case(name: "unknown type", graph: graph {
            $0.addNode("a", type: "sine-wave")
        }, code: .unknownNodeType, words: ["node \"a\"", "unknown node type \"sine-wave\""]),
        Case(name: "unknown parameter suggests", graph: graph {
            $0.addNode("s", type: "test-signal", ["frequncy": 440])
            $0.addNode("o", type: "null-sink"); $0.connect("s", to: "o")
        }, code: .unknownParameter, words: ["parameter \"frequncy\"", "did you mean \"frequency\""]),
        Case(name: "wrong value type", graph: graph {
            $0.addNode("s", type: "test-signal"); $0.addNode("g", type: "gain", ["db": "loud"])
            $0.addNode("o", type: "null-sink"); $0.connect("s", to: "g"); $0.connect("g", to: "o")
        }, code: .badParameterValue, words: ["node \"g\"", "parameter \"db\"", "expected a number in -120...60", "\"loud\""]),
        Case(name: "out of range", graph: graph {
            $0.addNode("s", type: "test-signal", ["channels": 9]); $0.addNode("o", type: "null-sink"); $0.connect("s", to: "o")
        }, code: .badParameterValue, words: ["parameter \"channels\"", "1...8", "got 9"]),
        Case(name: "choice", graph: graph {
            $0.addNode("s", type: "test-signal"); $0.addNode("o", type: "wav-sink", ["path": "x.wav", "format": "mp3"])
            $0.connect("s", to: "o")
        }, code: .badParameterValue, words: ["parameter \"format\"", "one of s16, s24, f32"]),
        Case(name: "missing required", graph: graph {
            $0.addNode("s", type: "file-source"); $0.addNode("o", type: "null-sink"); $0.connect("s", to: "o")
        }, code: .missingParameter, words: ["node \"s\"", "parameter \"path\"", "required"]),
        Case(name: "duplicate id", graph: graph {
            $0.addNode("s", type: "test-signal"); $0.addNode("s", type: "null-sink")
        }, code: .duplicateNodeId, words: ["node \"s\"", "duplicate"]),
        Case(name: "dangling connection", graph: graph {
            $0.addNode("s", type: "test-signal"); $0.addNode("o", type: "null-sink"); $0.connect("s", to: "out")
        }, code: .unknownNode, words: ["unknown node \"out\"", "did you mean \"o\""]),
        Case(name: "output bus out of range", graph: graph {
            $0.addNode("s", type: "test-signal"); $0.addNode("o", type: "null-sink"); $0.connect("s:1", to: "o")
        }, code: .busOutOfRange, words: ["node \"s\"", "output bus 1"]),
        Case(name: "input bus out of range", graph: graph {
            $0.addNode("s", type: "test-signal"); $0.addNode("o", type: "null-sink"); $0.connect("s", to: "o:2")
        }, code: .busOutOfRange, words: ["node \"o\"", "input bus 2"]),
        Case(name: "connect from a sink", graph: graph {
            $0.addNode("s", type: "test-signal"); $0.addNode("o", type: "null-sink"); $0.addNode("p", type: "null-sink")
            $0.connect("s", to: "o"); $0.connect("o", to: "p")
        }, code: .busOutOfRange, words: ["node \"o\"", "no outputs"]),
        Case(name: "input connected twice", graph: graph {
            $0.addNode("a", type: "test-signal"); $0.addNode("b", type: "test-signal"); $0.addNode("o", type: "null-sink")
            $0.connect("a", to: "o"); $0.connect("b", to: "o")
        }, code: .busAlreadyConnected, words: ["node \"o\"", "already connected", "mixer"]),
        Case(name: "unconnected input", graph: graph {
            $0.addNode("s", type: "test-signal"); $0.addNode("g", type: "gain")
        }, code: .unconnectedInput, words: ["node \"g\"", "input bus 0 is not connected"]),
        Case(name: "cycle", graph: graph {
            $0.addNode("s", type: "test-signal"); $0.addNode("m", type: "mixer"); $0.addNode("g", type: "gain")
            $0.connect("s", to: "m"); $0.connect("m", to: "g"); $0.connect("g", to: "m")
        }, code: .cycle, words: ["cycle", "\"m\"", "\"g\""]),
        Case(name: "no source", graph: graph {
            $0.addNode("o", type: "null-sink")
        }, code: .unconnectedInput, words: ["node \"o\""]),
    ]

    @Test(arguments: cases)
    func reportsPreciseError(_ c: Case) throws {
        guard case .failure(let errors) = GraphValidator.validate(c.graph, registry: .core) else {
            Issue.record("graph \(c.name) was accepted")
            return
        }
        let match = errors.errors.first { $0.code == c.code }
        let e = try #require(match, "codes were \(errors.errors.map(\.code))")
        #expect(e.description.hasPrefix("t.json"), "errors start with the file: \(e.description)")
        for w in c.words { #expect(e.description.contains(w), "\"\(e.description)\" lacks \(w)") }
        #expect(!e.description.contains("\n"), "one line")
    }

    @Test func reportsEveryProblemAtOnce() {
        var g = GraphDescription(name: "t", file: "t.json")
        g.addNode("a", type: "nope")
        g.addNode("g", type: "gain", ["db": 500, "bogus": 1])
        guard case .failure(let errors) = GraphValidator.validate(g, registry: .core) else {
            Issue.record("accepted")
            return
        }
        #expect(Set(errors.errors.map(\.code)).isSuperset(of: [.unknownNodeType, .badParameterValue, .unknownParameter]))
    }

    /// A control input marked required (no built-in port is; a custom node type may) must be
    /// connected: one error naming the node and the port, none once it is.
    @Test func aRequiredControlInputMustBeConnected() throws {
        var registry = NodeRegistry.core
        registry.register(NodeDescriptor(type: "needs-text", summary: "A sink that needs text (tests).", role: .sink,
                                         controls: [.input("text", .text, required: true, help: "what it needs")],
                                         make: { _ throws(GraphError) in NullSinkStandIn() }))
        registry.register(NodeDescriptor(type: "gives-text", summary: "A source that gives text (tests).", role: .source,
                                         controls: [.output("text", .text, help: "what it gives")],
                                         make: { _ throws(GraphError) in NullSinkStandIn() }))
        var g = GraphDescription(name: "t", file: "t.json")
        g.addNode("s", type: "gives-text"); g.addNode("n", type: "needs-text")
        g.connect("s", to: "n")
        g.controls = []  // "controls" given, without the required link
        let errors = GraphValidator.validate(g, registry: registry).failureErrors
        #expect(errors.count == 1 && errors[0].code == .unconnectedInput && errors[0].node == "n"
                && errors[0].message.contains("control input \"text\" (text) is not connected"), "\(errors)")
        g.connectControl("s.text", to: "n.text")
        #expect(GraphValidator.validate(g, registry: registry).failureErrors.isEmpty)
    }

    @Test func variadicInputsTakeNextFreeBus() throws {
        var g = GraphDescription(name: "t")
        g.addNode("a", type: "test-signal"); g.addNode("b", type: "test-signal"); g.addNode("m", type: "mixer")
        g.addNode("o", type: "null-sink")
        g.connect("a", to: "m"); g.connect("b", to: "m"); g.connect("m", to: "o")
        let v = try GraphValidator.validate(g, registry: .core).get()
        #expect(v.inputs(of: 2).map(\.toBus) == [0, 1])
        #expect(v.order.last == 3 && v.order.firstIndex(of: 2)! > v.order.firstIndex(of: 1)!)
    }

    /// An id the command line could not name (`--set a.b.db=...` splits at the first '.') or
    /// that prints as something else is refused, with the id it could have been.
    @Test(arguments: [("a.b", "a_b"), ("a=b", "a_b"), ("mic 1", "mic_1"), ("x\u{1B}[2J", "x_2J"), ("", nil), (" ", nil)])
    func nodeIdsAreLettersDigitsDashesAndUnderscores(_ id: String, _ suggested: String?) throws {
        var g = GraphDescription(name: "t", file: "t.json")
        g.addNode(id, type: "test-signal"); g.addNode("o", type: "null-sink"); g.connect(id, to: "o")
        let e = try #require(GraphValidator.validate(g, registry: .core).failureErrors.first)
        #expect(e.description.contains("a node id is letters, digits, '-' and '_' only"), "\(e.description)")
        #expect(e.suggestion == suggested.map { "did you mean \"\($0)\"?" })
    }

    @Test func nodeIdsMayBeInAnyScript() throws {
        var g = GraphDescription(name: "t")
        g.addNode("micrófono-1_ü", type: "test-signal"); g.addNode("出力", type: "null-sink"); g.connect("micrófono-1_ü", to: "出力")
        #expect(throws: Never.self) { try GraphValidator.validate(g, registry: .core).get() }
    }

    /// Two sinks writing one file (by any spelling of its path) is a graph error at validate
    /// time, naming the node that writes it first; devices take any number of writers. Before,
    /// only the run found it, when the second sink opened the file.
    @Test func twoSinksOfOneFileAreAnError() throws {
        var g = GraphDescription(name: "t", file: "t.json")
        g.addNode("s", type: "test-signal")
        g.addNode("m", type: "mixer", ["channels": 1])
        g.addNode("a", type: "wav-sink", ["path": "dup.wav"])
        g.addNode("b", type: "wav-sink", ["path": "./sub/../dup.wav"])
        g.addNode("n1", type: "wav-sink", ["path": "/dev/null"])
        g.addNode("n2", type: "wav-sink", ["path": "/dev/null"])
        g.connect("s", to: "m"); g.connect("m", to: "a")
        g.connect("s", to: "b"); g.connect("s", to: "n1"); g.connect("m", to: "n2")
        let errors = GraphValidator.validate(g, registry: .core).failureErrors
        #expect(errors.count == 1 && errors.first?.node == "b" && errors.first?.parameter == "path", "\(errors)")
        #expect(errors.first?.description.contains("is the file node \"a\" writes") == true, "\(errors)")
    }

    @Test func fillsDefaults() throws {
        var g = GraphDescription(name: "t")
        g.addNode("s", type: "test-signal"); g.addNode("o", type: "null-sink"); g.connect("s", to: "o")
        let v = try GraphValidator.validate(g, registry: .core).get()
        #expect(v.nodes[0].parameters.number("frequency") == 1000)
        #expect(v.nodes[0].parameters.string("signal") == "sine")
    }
}

/// A node that does nothing (descriptors under test need a factory).
final class NullSinkStandIn: AudioNode {
    func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] { [StreamFormat(sampleRate: 16000, channelCount: 1)] }
    func process(_ io: inout ProcessIO) -> FlowStatus { .endOfStream }
}

extension Result where Failure == GraphErrors {
    /// The errors of a failed validation (none for a valid graph).
    var failureErrors: [GraphError] {
        if case .failure(let e) = self { return e.errors }
        return []
    }
}
