import AudioGraphCore
import Foundation

/// Speech fixtures made at test time with Debian's flite (voice rms, which PocketSphinx
/// recognises well), and their sox conversions, cached in the temporary directory.
public enum Flite {
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/flite") }

    /// A 16 kHz mono WAV of `text`, or nil when flite is missing.
    public static func speech(_ text: String) -> URL? {
        guard isAvailable else { return nil }
        // The text's start, and a hash of all of it: two texts with the same first 60
        // characters are two fixtures (they were one, whichever test made it first).
        let url = fixtures.appendingPathComponent(text.replacingOccurrences(of: " ", with: "_").prefix(60)
            + "-\(pathHash(text)).wav")
        return cached(url) { run("/usr/bin/flite", ["-voice", "rms", "-t", text, "-o", $0.path]) }
    }

    /// flite's `text` as 16-bit samples, 16 kHz mono as the decoder takes them (the engine's
    /// own conversion, `PCM.int16`); nil when flite is missing.
    public static func samples16(_ text: String) throws -> [Int16]? {
        guard let url = speech(text) else { return nil }
        let wav = try WAVFile.monoSamples(path: url.path)
        guard wav.rate == 16000 else { throw EngineError(.audioFile, "\(url.path): \(wav.rate) Hz, expected 16000") }
        return wav.samples.map(PCM.int16)
    }

    /// The sayings one after another with `pause` seconds of digital silence between them
    /// (separate utterances for an end-of-speech detector); nil when flite or sox is missing.
    public static func speech(_ sayings: [String], pause: Double) -> URL? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sox") else { return nil }
        var parts: [String] = []
        for text in sayings {
            guard let url = speech(text) else { return nil }
            if !parts.isEmpty {
                guard let gap = cached(fixtures.appendingPathComponent("silence-\(pause)s.wav"), {
                    run("/usr/bin/sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", $0.path, "trim", "0", String(pause)])
                }) else { return nil }
                parts.append(gap.path)
            }
            parts.append(url.path)
        }
        let name = "sayings-\(pathHash(parts.joined(separator: "|")))"
        return cached(fixtures.appendingPathComponent(name + ".wav")) { run("/usr/bin/sox", parts + [$0.path]) }
    }

    /// A script of sayings, each followed by its own seconds of digital silence (a user who
    /// waits for an answer); nil when flite or sox is missing.
    public static func script(_ steps: [(text: String, then: Double)]) -> URL? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sox") else { return nil }
        var parts: [String] = []
        for step in steps {
            guard let url = speech(step.text) else { return nil }
            parts.append(url.path)
            guard step.then > 0 else { continue }
            guard let gap = cached(fixtures.appendingPathComponent("silence-\(step.then)s.wav"), {
                run("/usr/bin/sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", $0.path, "trim", "0", String(step.then)])
            }) else { return nil }
            parts.append(gap.path)
        }
        let name = "script-\(pathHash(parts.joined(separator: "|")))"
        return cached(fixtures.appendingPathComponent(name + ".wav")) { run("/usr/bin/sox", parts + [$0.path]) }
    }

    /// Runs sox to convert `input` to `rate`/`channels` (keeping the first `seconds` if
    /// given); nil when sox is missing. Conversions are cached beside the speech, named after
    /// the input's path and the conversion, so test runs reuse them instead of piling up.
    public static func convert(_ input: URL, rate: Int, channels: Int, seconds: Double? = nil) -> URL? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sox") else { return nil }
        let name = "\(input.deletingPathExtension().lastPathComponent.prefix(40))-\(pathHash(input.path))"
            + "-\(rate)-\(channels)" + (seconds.map { "-\($0)s" } ?? "")
        return cached(fixtures.appendingPathComponent(name + ".wav")) {
            run("/usr/bin/sox", [input.path, "-r", "\(rate)", "-c", "\(channels)", "-b", "16", $0.path]
                + (seconds.map { ["trim", "0", String($0)] } ?? []))
        }
    }

    /// Where the fixtures are kept (created on first use).
    static var fixtures: URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ag-flite")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// `url` if it exists; otherwise what `make` wrote to a temporary of its own beside it,
    /// moved there. Parallel tests, in one process or several, may race to make the same
    /// fixture: each writes its own file, the first move wins, the loser's is removed.
    static func cached(_ url: URL, _ make: (URL) -> Bool) -> URL? {
        if FileManager.default.fileExists(atPath: url.path) { return url }
        let tmp = url.deletingPathExtension().appendingPathExtension("\(getpid())-\(UUID().uuidString).tmp.wav")
        defer { try? FileManager.default.removeItem(at: tmp) }
        guard make(tmp) else { return nil }
        try? FileManager.default.moveItem(at: tmp, to: url)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// Runs `tool` with `arguments`; whether it succeeded.
    static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// FNV-1a of `path`: the same in every run (Swift's `hashValue` is seeded per process).
    static func pathHash(_ path: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in path.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return String(h, radix: 16)
    }
}
