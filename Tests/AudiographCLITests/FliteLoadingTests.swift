import AudioGraphTestSupport
import Foundation
import Testing

/// flite is opened when a graph first speaks (it is not linked): a graph that speaks does,
/// and one whose flite cannot be opened stops with one line naming the library and the node.
@Suite struct FliteLoadingTests {
    private func speakingGraph() throws -> (graph: URL, output: URL) {
        let dir = CLI.tempDir()
        let output = dir.appendingPathComponent("said.wav"), graph = dir.appendingPathComponent("say.json")
        try """
            {"graph": "say", "nodes": [
              {"id": "tts", "type": "speech-synth", "params": {"text": "hello there"}},
              {"id": "out", "type": "wav-sink", "params": {"path": "\(output.path)"}}],
             "connections": [{"from": "tts", "to": "out"}]}
            """.write(to: graph, atomically: true, encoding: .utf8)
        return (graph, output)
    }

    @Test(.flite) func aGraphThatSpeaksOpensFlite() throws {
        let (graph, output) = try speakingGraph()
        let r = try CLI.run(["run", graph.path])
        let said = try WAVFixture.read(output)
        #expect(r.status == 0 && said.samples.count > 8000 && said.samples.contains { abs($0) > 1000 }, "\(r.stderr)")
    }

    @Test(.flite) func fliteThatCannotBeOpenedIsOneLine() throws {
        let (graph, _) = try speakingGraph()
        let fake = CLI.tempDir()
        try Data("not a library".utf8).write(to: fake.appendingPathComponent("libflite.so.1"))
        let r = try CLI.run(["run", graph.path], environment: ["LD_LIBRARY_PATH": fake.path])
        #expect(r.status != 0 && r.stderrLines.count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("libflite.so.1") && r.stderr.contains("tts") && r.stderr.contains("voice"), "\(r.stderr)")
    }
}
