import Foundation
import Testing

/// `validate`, `nodes`, `dot` and help: the manual must be true.
@Suite struct InspectCommandTests {
    @Test func validateReportsFormats() throws {
        let r = try CLI.run(["validate", "Graphs/tone.json"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("valid graph \"tone\"") && r.stdout.contains("mix (mixer) -> 48000 Hz stereo"))
    }

    @Test func nodesListsEveryTypeAndMatchesTheREADME() throws {
        let text = try CLI.run(["nodes"])
        for t in ["file-source", "wav-sink", "null-sink", "gain", "mixer", "test-signal", "level-meter"] {
            #expect(text.stdout.contains("\(t)  ("), "\(t) listed")
        }
        let md = try CLI.run(["nodes", "--markdown"]).stdout
        let readme = try String(contentsOf: CLI.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains(md.trimmingCharacters(in: .whitespacesAndNewlines)),
                "README's node reference is `audiograph nodes --markdown` (regenerate it)")
    }

    @Test func dotDrawsNodesAndFormats() throws {
        let r = try CLI.run(["dot", "Graphs/tone.json"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("digraph \"tone\" {"))
        #expect(r.stdout.contains("\"mix\" -> \"meter\" [label=\"48000 Hz stereo\"]"))
    }

    @Test func everyCommandHasHelp() throws {
        for c in ["run", "validate", "nodes", "dot"] {
            let r = try CLI.run([c, "--help"])
            #expect(r.status == 0 && r.stdout.contains("USAGE: audiograph \(c)"))
        }
        let top = try CLI.run(["--help"])
        #expect(top.stdout.contains("COMMANDS:"))
    }

    @Test func everyBundledGraphValidates() throws {
        // Live and placeholder inputs are swapped for a real file, as users do with --source;
        // graphs without a replaceable input (test signals) validate as they are.
        let wav = CLI.tempDir().appendingPathComponent("in.wav")
        try WAVFixture.write(wav, rate: 44100, channels: 2, bits: 16, samples: WAVFixture.noise(count: 8820, bits: 16))
        let dir = CLI.packageRoot.appendingPathComponent("Graphs")
        let graphs = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }
        #expect(graphs.count >= 6)
        for f in graphs {
            var r = try CLI.run(["validate", "graphs/\(f)", "--source", wav.path])
            if r.stderr.contains("no input node to replace") { r = try CLI.run(["validate", "graphs/\(f)"]) }
            #expect(r.status == 0, "\(f): \(r.stderr)")
            #expect(r.stdout.contains("valid graph"), "\(f)")
            let dot = try CLI.run(["dot", "--no-formats", "graphs/\(f)"])
            #expect(dot.status == 0 && dot.stdout.hasPrefix("digraph"), "\(f): \(dot.stderr)")
        }
    }
}
