import AudioGraphTestSupport
import Foundation
import Testing

/// The terminal view as a person sees it: `audiograph run` in a pseudo-terminal (`script`),
/// its output replayed into a screen (`TerminalScreen`) at several moments.
@Suite struct TerminalViewTests {
    static let columns = 50

    /// Runs the CLI in a pseudo-terminal `columns` wide; its raw output.
    static func inTerminal(_ args: [String], noColor: Bool = false, term: String = "xterm", wrappedIn wrapper: [String] = []) throws -> String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            print("skipped: script(1) is not installed (util-linux)")
            return nil
        }
        let quoted = (wrapper + [CLI.binary.path] + args).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        p.arguments = ["-qfec", "stty cols \(columns) rows 40; exec " + quoted.joined(separator: " "), "/dev/null"]
        p.currentDirectoryURL = CLI.packageRoot
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = noColor ? "1" : nil
        env["TERM"] = term
        p.environment = env
        let out = Pipe()
        p.standardOutput = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The output up to the end of the first write that contains `needle` (the next erase to
    /// the end of the screen: the following write begins by erasing the live area).
    static func upTo(_ needle: String, in text: String, last: Bool = false) -> String? {
        guard let r = text.range(of: needle, options: last ? .backwards : []) else { return nil }
        let end = text[r.upperBound...].range(of: "\u{1B}[J")?.lowerBound ?? text.endIndex
        return String(text[..<end])
    }

    @Test(.flite, .pseudoTerminal) func partialsStatusAndLevelHaveTheirOwnPlaces() throws {
        let wav = try #require(Flite.speech(["go forward ten meters", "find japanese restaurants nearby and the status of flight l x forty"], pause: 1.5))
        let raw = try #require(try Self.inTerminal(["run", "graphs/dictation.json", "--source", wav.path, "--realtime"]))
        // While the first utterance is spoken: the status line (progress, level) and, on its
        // own line below it, the partial; neither overwrites the other.
        let during = try #require(Self.upTo("… go", in: raw), "no partial shown: \(raw.suffix(400))")
        let screen = TerminalScreen(columns: Self.columns, showing: during).lines.filter { !$0.isEmpty }
        let status = try #require(screen.dropLast().last, "\(screen)")
        #expect(status.hasPrefix("  listening   [") && status.contains(" / ") && status.hasSuffix(" dB"), "status line: \(screen)")
        #expect(screen.last?.hasPrefix("  … go") == true, "partial on its own line: \(screen)")
        #expect(!screen.contains { $0.contains("… ") && $0.contains(" / ") })
        // A partial longer than the terminal wraps onto lines of its own, none past the width.
        let long = try #require(Self.upTo("… find", in: raw, last: true), "no partial of the long utterance")
        let wrapped = TerminalScreen(columns: Self.columns, showing: long).lines.filter { !$0.isEmpty }
        let partialLines = wrapped.drop { !$0.hasPrefix("  … find") }
        #expect(partialLines.count >= 2 && partialLines.allSatisfy { $0.count < Self.columns }, "\(wrapped)")
        // After the final: it replaced its partial; at the end the live area is gone.
        let end = TerminalScreen(columns: Self.columns, showing: raw).lines.filter { !$0.isEmpty }
        let finals = end.filter { $0.contains("(confidence") }
        #expect(finals.count == 2 && finals[0].contains("[1] go forward ten meters"), "\(end)")
        #expect(!end.contains { $0.contains("… ") || $0.contains("listening   [") || $0.contains(" dB") }, "live area erased: \(end)")
        #expect(end.suffix(2).contains { $0.hasPrefix("audiograph: ended") }, "\(end)")
        // One device line at most, colour on a terminal.
        #expect(raw.contains("\u{1B}[2m"), "partials dimmed")
    }

    @Test(.flite, .pseudoTerminal) func noColourWithNoColorAndNothingLiveWhenPiped() throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let raw = try #require(try Self.inTerminal(["run", "graphs/dictation.json", "--source", wav.path, "--realtime"], noColor: true))
        #expect(raw.range(of: "\u{1B}\\[[0-9;]*m", options: .regularExpression) == nil, "no colour with NO_COLOR")
        #expect(raw.contains("… go"), "the live area still shows")
        let piped = try CLI.run(["run", "graphs/dictation.json", "--source", wav.path])
        #expect(!piped.stdout.contains("\u{1B}") && !piped.stdout.contains("…") && !piped.stderr.contains("\u{1B}"),
                "no live area when stdout is not a terminal: \(piped.stdout)")
        #expect(piped.stdout.contains("[1] go forward ten meters"))
        // A terminal that cannot move its cursor gets the lines alone; before, the live area's
        // cursor movements were drawn on it as text.
        let dumb = try #require(try Self.inTerminal(["run", "graphs/dictation.json", "--source", wav.path], term: "dumb"))
        #expect(!dumb.contains("\u{1B}") && !dumb.contains("…"), "\(dumb)")
        #expect(dumb.contains("[1] go forward ten meters"))
    }
}
