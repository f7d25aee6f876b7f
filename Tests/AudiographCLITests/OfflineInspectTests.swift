import Foundation
import Testing

/// `validate` and `dot` of every bundled graph on a machine with no sound server and none
/// of the graphs' example input files: the graph is valid (exit 0) and its formats are
/// decided at start; `--open` asks for the devices and files and fails without them.
@Suite struct OfflineInspectTests {
    static let graphs = ["command", "dictation", "gain", "tone", "transcribe", "wakeword"]
    static let noServer = ["PULSE_SERVER": "unix:/nonexistent/audiograph-test-socket"]

    @Test(arguments: graphs)
    func validateAndDotNeedNoDevicesOrInputs(_ name: String) throws {
        let graph = "Graphs/\(name).json"
        let v = try CLI.run(["validate", graph], environment: Self.noServer)
        #expect(v.status == 0, "\(v.stderr)")
        #expect(v.stdout.contains("valid graph"))
        let d = try CLI.run(["dot", graph], environment: Self.noServer)
        #expect(d.status == 0 && d.stdout.contains("digraph"), "\(d.stderr)")
        if name != "tone" {
            #expect(v.stdout.contains("decided at start"), "\(v.stdout)")
            let o = try CLI.run(["validate", graph, "--open"], environment: Self.noServer)
            #expect(o.status == 1 && o.stderrLines.count == 1, "\(o.stderr)")
        }
    }
}
