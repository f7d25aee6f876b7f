import AudioGraphTestSupport
import Foundation
import Testing

/// flite is opened when a graph first speaks or a vocabulary word needs its pronunciation (it
/// is not linked): a graph that speaks does, one whose flite cannot be opened stops with one
/// line naming the library and the node, and a vocabulary word flite would have spelled is
/// left out with a warning that says flite is why.
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

    @Test(.flite) func aVocabularyWordFliteWouldSpellSaysFliteIsMissing() throws {
        let fake = CLI.tempDir()
        try Data("not a library".utf8).write(to: fake.appendingPathComponent("libflite.so.1"))
        let vocabulary = CLI.tempDir().appendingPathComponent("words.txt")
        try "shawarma\nramen\tR AA M AH N\n".write(to: vocabulary, atomically: true, encoding: .utf8)
        let wav = try #require(Flite.speech("go forward ten meters"))
        let r = try CLI.run(["run", "graphs/dictation.json", "--source", wav.path, "--set", "asr.vocabulary=\(vocabulary.path)"],
                            environment: ["LD_LIBRARY_PATH": fake.path])
        #expect(r.status == 0, "a word left out is a warning, not an error: \(r.stderr)")
        let warnings = r.stderrLines.filter { $0.contains("warning") }
        #expect(warnings.count == 1, "\(r.stderr)")
        #expect(warnings.first.map { $0.contains("\"shawarma\"") && $0.contains("flite") && $0.contains("libflite.so.1") } == true,
                "\(r.stderr)")
        #expect(!r.stderr.contains("ramen"), "a word given its pronunciation needs no flite: \(r.stderr)")
    }
}
