import Foundation

/// Speech fixtures made at test time with Debian's flite (voice rms, which PocketSphinx
/// recognises well), cached per process.
public enum Flite {
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/flite") }

    /// A 16 kHz mono WAV of `text`, or nil when flite is missing.
    public static func speech(_ text: String) -> URL? {
        guard isAvailable else { return nil }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ag-flite")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(text.replacingOccurrences(of: " ", with: "_").prefix(60) + ".wav")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        let tmp = url.deletingPathExtension().appendingPathExtension("\(getpid()).tmp.wav")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/flite")
        p.arguments = ["-voice", "rms", "-t", text, "-o", tmp.path]
        try? p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { return nil }
        try? FileManager.default.moveItem(at: tmp, to: url)
        return url
    }

    /// Runs sox to convert `input` to `rate`/`channels` (keeping the first `seconds` if
    /// given); nil when sox is missing.
    public static func convert(_ input: URL, rate: Int, channels: Int, seconds: Double? = nil) -> URL? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sox") else { return nil }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("ag-\(UUID().uuidString)-\(rate)-\(channels).wav")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        p.arguments = [input.path, "-r", "\(rate)", "-c", "\(channels)", "-b", "16", out.path]
            + (seconds.map { ["trim", "0", String($0)] } ?? [])
        try? p.run()
        p.waitUntilExit()
        return p.terminationStatus == 0 ? out : nil
    }
}
