import AudioGraphTestSupport
import Foundation
import Testing

/// Paths written in a graph file resolve against the file's folder; paths on the command
/// line (`--set`, `--source`) against the working directory. Run from another directory.
@Suite(.enabled(if: Flite.isAvailable, "flite is not installed"))
struct GraphPathTests {
    @Test(.flite) func aGraphWorksFromAnotherDirectory() throws {
        let elsewhere = CLI.tempDir()
        let wav = try #require(Flite.speech("find japanese restaurants nearby"))
        // command.json names its grammar "command.gram", beside it.
        let graph = CLI.packageRoot.appendingPathComponent("Graphs/command.json").path
        let r = try CLI.run(["run", graph, "--source", wav.path, "--json"], directory: elsewhere)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#""text":"find japanese restaurants nearby""#), "\(r.stdout)")
    }

    @Test(.flite) func commandLinePathsStayWithTheWorkingDirectory() throws {
        let elsewhere = CLI.tempDir()
        let wav = try #require(Flite.speech("go forward ten meters"))
        try FileManager.default.copyItem(at: wav, to: elsewhere.appendingPathComponent("in.wav"))
        // A graph in its own folder that reads "missing.wav" (beside it) and writes "written.wav".
        let graphDir = CLI.tempDir()
        try """
            {"nodes": [{"id": "src", "type": "file-source", "params": {"path": "missing.wav"}},
                       {"id": "out", "type": "wav-sink", "params": {"path": "written.wav"}}],
             "connections": [{"from": "src", "to": "out"}]}
            """.write(to: graphDir.appendingPathComponent("copy.json"), atomically: true, encoding: .utf8)
        let graph = graphDir.appendingPathComponent("copy.json").path
        // --source and --set: relative to the working directory.
        let r = try CLI.run(["run", graph, "--source", "in.wav", "--set", "out.path=here.wav"], directory: elsewhere)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("here.wav").path))
        // An output written in the file: relative to the working directory (an installed graph
        // writes where its user is), not beside the graph.
        let s = try CLI.run(["run", graph, "--source", "in.wav"], directory: elsewhere)
        #expect(s.status == 0, "\(s.stderr)")
        #expect(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("written.wav").path))
        #expect(!FileManager.default.fileExists(atPath: graphDir.appendingPathComponent("written.wav").path))
        // And a missing file written in the graph is named as resolved.
        let t = try CLI.run(["run", graph], directory: elsewhere)
        #expect(t.status == 1 && t.stderr.contains(graphDir.appendingPathComponent("missing.wav").path), "\(t.stderr)")
    }

    /// `~/` is the home folder, in a graph file and on the command line (`--set
    /// out.path=~/x.wav`, `--source src=~/x.wav`: no shell expands a `~` after `=`). Before,
    /// the graph's was taken as a folder `~` beside the graph, the command line's as one in
    /// the working directory ("cannot create: No such file or directory").
    @Test(.flite) func aTildeIsTheHomeFolder() throws {
        let home = CLI.tempDir(), elsewhere = CLI.tempDir(), graphDir = CLI.tempDir()
        let wav = try #require(Flite.speech("go forward ten meters"))
        try FileManager.default.copyItem(at: wav, to: home.appendingPathComponent("in.wav"))
        try """
            {"nodes": [{"id": "src", "type": "file-source", "params": {"path": "~/in.wav"}},
                       {"id": "out", "type": "wav-sink", "params": {"path": "~/written.wav"}}],
             "connections": [{"from": "src", "to": "out"}]}
            """.write(to: graphDir.appendingPathComponent("copy.json"), atomically: true, encoding: .utf8)
        let graph = graphDir.appendingPathComponent("copy.json").path
        let r = try CLI.run(["run", graph], environment: ["HOME": home.path], directory: elsewhere)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("written.wav").path))
        let s = try CLI.run(["run", graph, "--source", "src=~/in.wav", "--set", "out.path=~/set.wav"],
                            environment: ["HOME": home.path], directory: elsewhere)
        #expect(s.status == 0, "\(s.stderr)")
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("set.wav").path))
    }
}
