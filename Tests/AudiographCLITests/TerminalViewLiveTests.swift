import AudioGraphTestSupport
import Foundation
import Testing

/// The terminal view on live input: the dictation graph captures the test daemon's pipe
/// source in a pseudo-terminal while flite speech is fed in real time.
extension PulseIntegrationTests {
    @Test(.flite, .pulseDaemon, .pseudoTerminal) func liveTerminalShowsStateTimeLevelAndPartial() throws {
        let pipe = try #require(Self.pipe)
        let wav = try #require(Flite.speech("find japanese restaurants nearby"))
        let samples = try WAVFixture.read(wav).samples.map { Int16(truncatingIfNeeded: $0) }
        let feeder = Thread { Self.feed(samples + [Int16](repeating: 0, count: 32000), to: pipe, after: 2.5) }
        feeder.start()
        // SIGINT after the speech and a pause: the utterance in flight gets its final.
        let raw = try #require(try TerminalViewTests.inTerminal(["run", "graphs/dictation.json"],
                                                                wrappedIn: ["/usr/bin/timeout", "-s", "INT", "9"]))
        while !feeder.isFinished { usleep(100_000) }
        // The first partial, whatever its words (live, the first word has come out as "find"
        // and as "fine": which one depends on where the blocks fall).
        let during = try #require(TerminalViewTests.upTo("… ", in: raw), "no partial shown: \(raw.suffix(300))")
        let screen = TerminalScreen(columns: TerminalViewTests.columns, showing: during).lines.filter { !$0.isEmpty }
        let status = screen.dropLast().last ?? ""
        #expect(status.hasPrefix("  listening   ") && status.contains(" s ") && status.hasSuffix(" dB"), "\(screen)")
        #expect(screen.filter { $0.hasPrefix("audiograph: node \"mic\"") }.count <= 1, "one device line: \(screen)")
        let end = TerminalScreen(columns: TerminalViewTests.columns, showing: raw).lines.filter { !$0.isEmpty }
        #expect(end.contains { $0.contains("[1] ") && $0.contains("japanese restaurants") }, "the final: \(end)")
        #expect(!end.contains { $0.contains("… ") || $0.hasSuffix(" dB") }, "live area erased: \(end)")
    }
}
