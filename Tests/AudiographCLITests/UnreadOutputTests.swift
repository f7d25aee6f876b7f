import AudioGraphTestSupport
import Foundation
import Testing

/// `audiograph run` whose standard output nobody reads for a while (a pipe to a program that
/// is busy, a terminal paused with Ctrl-S): the run goes on as if it were read, and nothing
/// printed is lost. The assistant answers on the same thread that delivers events, so a
/// printer that waited for the reader there held the answers with it.
@Suite struct UnreadOutputTests {
    /// The assistant graph with a level meter every 5 ms on the microphone path: about 200
    /// events a second, so the pipe (64 KiB) is full before the first command is heard.
    func graph(in dir: URL) throws -> URL {
        let grammar = CLI.packageRoot.appendingPathComponent("Graphs/command.gram").path
        let text = """
            {"graph": "chatty-assistant",
             "nodes": [
              {"id": "mic", "type": "pulse-source"}, {"id": "rs", "type": "resampler", "params": {"rate": 16000}},
              {"id": "meter", "type": "level-meter", "params": {"interval": 0.005}},
              {"id": "vad", "type": "vad"},
              {"id": "eos", "type": "end-of-speech", "params": {"mode": "short", "complete": 0.25, "incomplete": 1.2, "no-speech-timeout": 0}},
              {"id": "asr", "type": "recognizer", "params": {"wake-word": "hello computer", "grammar": "\(grammar)", "command-timeout": 5}},
              {"id": "tts", "type": "speech-synth", "params": {"reply": "okay, {text}"}},
              {"id": "speaker", "type": "pulse-sink"}],
             "connections": [{"from": "mic", "to": "rs"}, {"from": "rs", "to": "meter"}, {"from": "meter", "to": "vad"},
              {"from": "vad", "to": "eos"}, {"from": "eos", "to": "asr"}, {"from": "tts", "to": "speaker"}],
             "controls": [{"from": "asr.results", "to": "tts.text"},
              {"from": "tts.playing", "to": "vad.gate"}, {"from": "tts.playing", "to": "asr.gate"},
              {"from": "asr.verdict", "to": "eos.verdict"}]}
            """
        let url = dir.appendingPathComponent("chatty-assistant.json")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test(.flite) func anAssistantWhoseOutputIsNotReadAnswersAllTheSameAndLosesNoLine() throws {
        let user = try #require(Flite.script([("hello computer", 1.2), ("go forward ten meters", 5),
                                              ("hello computer", 1.2), ("find japanese restaurants nearby", 5)]))
        let dir = CLI.tempDir()
        let graph = try graph(in: dir)
        let read = dir.appendingPathComponent("read.wav"), unread = dir.appendingPathComponent("unread.wav")
        func args(_ sink: URL) -> [String] { ["run", graph.path, "--source", user.path, "--sink", sink.path, "--json"] }

        let reference = try CLI.run(args(read), timeout: 120)
        #expect(reference.status == 0, "\(reference.stderr)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: read.path)[.size] as? Int)
        #expect(reference.stdout.utf8.count > 4 * 65536, "the run prints more than the pipe holds: \(reference.stdout.utf8.count) bytes")

        // The same run with stdout left unread until its playback file is complete: the run
        // must get there on its own, answering both commands, and then print everything.
        let r = try CLI.run(args(unread), timeout: 120, readStdoutWhen: {
            ((try? FileManager.default.attributesOfItem(atPath: unread.path)[.size] as? Int) ?? 0) >= size
        })
        #expect(r.status == 0, "\(r.stderr)")
        let answers = try (Data(contentsOf: read), Data(contentsOf: unread))
        let same = answers.0 == answers.1  // a Bool: the test library would diff two Data byte by byte
        #expect(same, "the playback of the unread run differs (\(answers.1.count) bytes against \(answers.0.count))")
        let said = { (r: CLI.Result) in r.stdoutLines.filter { $0.contains("\"speak-start\"") }.count }
        #expect(said(reference) == 2 && said(r) == 2, "answers: \(said(reference)) read, \(said(r)) unread")
        // Every line, in order (times and figures are the same: file input is deterministic,
        // except the device line's wall-clock figures, which a file run does not print).
        #expect(r.stdoutLines.count == reference.stdoutLines.count, "\(r.stdoutLines.count) lines against \(reference.stdoutLines.count)")
        #expect(r.stdoutLines.last?.contains("\"type\":\"end\"") == true, "\(r.stdoutLines.last ?? "")")
        #expect(!r.stderr.contains("not written"), "\(r.stderr)")
    }
}
