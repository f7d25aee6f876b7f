import AudioGraphCore
import Foundation
import Testing

@testable import AudioGraph

@Suite struct GraphFileTests {
    func errors(_ text: String) -> [GraphError] {
        do {
            _ = try GraphFile.parse(Array(text.utf8), file: "g.json")
            return []
        } catch {
            return error.errors
        }
    }

    @Test func parsesTheContractExample() throws {
        let g = try GraphFile.parse(Array("""
            {"graph": "d", "nodes": [
              {"id": "mic", "type": "file-source", "params": {"path": "a.wav"}},
              {"id": "out", "type": "wav-sink", "params": {"path": "b.wav", "format": "s24"}}],
             "connections": [{"from": "mic:0", "to": "out"}]}
            """.utf8), file: "g.json")
        #expect(g.name == "d" && g.nodes.count == 2)
        #expect(g.nodes[1].params["format"] == .string("s24"))
        #expect(g.connections[0].from == BusRef(node: "mic", bus: 0) && g.connections[0].to.bus == nil)
        #expect(g.nodes[1].paramLocations["format"] == SourceLocation(line: 3, column: 75))
    }

    @Test func syntaxErrorsArePlaced() {
        let e = errors("{\"nodes\": [\n  {\"id\": \"a\",, }\n]}")
        #expect(e.count == 1)
        #expect(e.first?.description.hasPrefix("g.json:2:14: invalid JSON: expected a \"key\"") == true, "\(e)")
    }

    /// A UTF-8 byte order mark is read past; UTF-16 (a Windows editor's "Unicode") is named.
    @Test func byteOrderMarks() throws {
        let text = #"{"nodes": [{"id": "g", "type": "gain"}], "connections": []}"#
        #expect(try GraphFile.parse([0xEF, 0xBB, 0xBF] + Array(text.utf8), file: "g.json").nodes.count == 1)
        for bom: [UInt8] in [[0xFF, 0xFE], [0xFE, 0xFF]] {
            let utf16 = bom + text.utf16.flatMap { bom[0] == 0xFF ? [UInt8($0 & 0xFF), UInt8($0 >> 8)] : [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            do {
                _ = try GraphFile.parse(utf16, file: "g.json")
                Issue.record("UTF-16 parsed")
            } catch {
                #expect(error.errors.map(\.description) == ["g.json:1:1: invalid JSON: the file is UTF-16 text: save it as UTF-8"])
            }
        }
    }

    @Test func unknownKeysAreErrorsNotIgnored() {
        let e = errors(#"{"nodes": [{"id": "a", "type": "gain", "parms": {}}], "conections": []}"#)
        #expect(e.count == 2)
        #expect(e.contains { $0.description.contains("unknown key \"parms\"") && $0.node == "a" })
        #expect(e.contains { $0.description.contains("unknown key \"conections\"") })
    }

    /// A file wrong throughout lists its first 50 problems and counts the rest, as the
    /// validator does; before, 100,000 unknown keys were 100,000 lines.
    @Test func aFileWrongThroughoutListsFiftyAndCountsTheRest() throws {
        let nodes = (0..<200).map { #"{"id": "n\#($0)", "type": "gain", "bogus": 1}"# }.joined(separator: ", ")
        do {
            _ = try GraphFile.parse(Array(#"{"nodes": [\#(nodes)], "connections": []}"#.utf8), file: "g.json")
            Issue.record("accepted")
        } catch {
            #expect(error.errors.count == GraphValidator.mostErrors)
            #expect(error.unlisted == 150)
            #expect(error.lines.last == "(150 more problems in g.json, not listed)")
        }
    }

    @Test func duplicateKeysAreErrors() {
        let e = errors(#"{"nodes": [], "nodes": []}"#)
        #expect(e.first?.description.contains("duplicate key \"nodes\"") == true)
    }

    @Test func wrongTypesAreNamed() {
        let e = errors(#"{"nodes": [{"id": "a", "type": "gain", "params": {"db": [1]}}], "connections": {}}"#)
        #expect(e.contains { $0.description.contains("node \"a\": parameter \"db\": expected a number, string or boolean, got an array") })
        #expect(e.contains { $0.description.contains("\"connections\" must be an array") })
    }

    /// `"controls"` of the wrong JSON shape: one error each, placed.
    @Test func controlsOfTheWrongTypeAreNamed() {
        let graph = #"{"nodes": [{"id": "s", "type": "test-signal"}], "connections": [], "controls": "#
        for (controls, message) in [("5", "\"controls\" must be an array, got a number"),
                                    (#"["s.x"]"#, "a control connection must be an object, got a string"),
                                    (#"[{"from": "s.a", "to": 3}]"#, "\"to\" must be a string, got a number")] {
            let e = errors(graph + controls + "}")
            #expect(e.count == 1 && e[0].description.contains(message) && e[0].description.contains("g.json:1:"), "\(controls): \(e)")
        }
    }

    @Test func missingFileIsOneClearError() {
        do {
            _ = try GraphFile.load("/nonexistent/graph.json")
            Issue.record("loaded")
        } catch {
            #expect(error.errors.map(\.description) == ["/nonexistent/graph.json: cannot read graph file: no such file"])
        }
    }

    /// A graph from a pipe (`run <(make-graph)`) is read; what is no graph file is said so:
    /// a folder, an empty file, a device that never ends (Foundation's whole-file read had
    /// called each of the last three, and the pipe, "permission denied?").
    @Test func pipesFoldersAndDevices() throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("graph-fifo-\(getpid())").path
        unlink(fifo)
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let text = #"{"nodes": [{"id": "g", "type": "gain"}], "connections": []}"#
        Thread.detachNewThread {
            let fd = open(fifo, O_WRONLY)
            _ = text.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        #expect(try GraphFile.load(fifo).nodes.map(\.id) == ["g"])
        for (path, why) in [("/tmp", "is a directory, not a graph file"), ("/dev/null", "empty"),
                            ("/dev/zero", "larger than 16 MB: not a graph file")] {
            do {
                _ = try GraphFile.load(path)
                Issue.record("\(path) loaded")
            } catch {
                #expect(error.errors.map(\.description) == ["\(path): cannot read graph file: \(why)"])
            }
        }
    }

    @Test func setTypesValuesByTheirSpec() throws {
        var g = GraphDescription(name: "t")
        g.addNode("g", type: "gain")
        try GraphEdits.set("g.db=-3.5", in: &g, registry: .builtin)
        #expect(g.nodes[0].params["db"] == .number(-3.5))
        #expect(throws: GraphError.self) { try GraphEdits.set("g.db", in: &g, registry: .builtin) }
        #expect(throws: GraphError.self) { try GraphEdits.set("nope.db=1", in: &g, registry: .builtin) }
    }

    /// A number typed with its parameter's unit, as on a command line: `-6dB`, `500ms`,
    /// `16kHz`, a typographic minus. A unit not the parameter's is refused, naming the unit
    /// the number is in.
    @Test func setTakesANumberWithItsUnit() throws {
        var g = GraphDescription(name: "t")
        g.addNode("g", type: "gain")
        g.addNode("m", type: "level-meter")
        g.addNode("s", type: "test-signal")
        for (text, param, node, value) in [("g.db=-6dB", "db", 0, -6.0), ("g.db=-6 dB", "db", 0, -6), ("g.db=\u{2212}4.5", "db", 0, -4.5),
                                           ("m.interval=500ms", "interval", 1, 0.5), ("m.interval=2s", "interval", 1, 2),
                                           ("s.rate=44.1kHz", "rate", 2, 44100), ("s.rate=8000 Hz", "rate", 2, 8000)] {
            try GraphEdits.set(text, in: &g, registry: .builtin)
            #expect(g.nodes[node].params[param] == .number(value), "\(text)")
        }
        for (text, words) in [("m.interval=5Hz", "0.005...3600 s (or ms), got \"5Hz\""), ("g.db=6s", "-120...60 dB, got \"6s\"")] {
            let e = #expect(throws: GraphError.self) { try GraphEdits.set(text, in: &g, registry: .builtin) }
            #expect(e?.message.contains(words) == true, "\(text): \(String(describing: e))")
        }
    }

    @Test func sourceReplacesTheInput() throws {
        var g = GraphDescription(name: "t")
        g.addNode("a", type: "test-signal"); g.addNode("o", type: "null-sink"); g.connect("a", to: "o")
        g.addNode("f", type: "file-source", ["path": "x.wav"])
        try GraphEdits.source("y.wav", node: nil, in: &g, registry: .builtin)
        #expect(g.nodes[2].params["path"] == .string("y.wav"), "the one file input is replaced")
        g.addNode("f2", type: "file-source", ["path": "x.wav"])
        #expect(throws: GraphError.self, "two inputs: ambiguous") {
            try GraphEdits.source("z.wav", node: nil, in: &g, registry: .builtin)
        }
        try GraphEdits.source("y.wav", node: "f", in: &g, registry: .builtin)
        #expect(g.nodes[2].params["path"] == .string("y.wav"))
        #expect(throws: GraphError.self) { try GraphEdits.source("y.wav", node: "o", in: &g, registry: .builtin) }
    }
}
