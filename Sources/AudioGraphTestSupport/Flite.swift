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
        guard p.terminationStatus == 0 else { try? FileManager.default.removeItem(at: tmp); return nil }
        if (try? FileManager.default.moveItem(at: tmp, to: url)) == nil { try? FileManager.default.removeItem(at: tmp) }
        return url
    }

    /// Runs sox to convert `input` to `rate`/`channels` (keeping the first `seconds` if
    /// given); nil when sox is missing. Conversions are cached beside the speech, named after
    /// the input's path and the conversion, so test runs reuse them instead of piling up.
    public static func convert(_ input: URL, rate: Int, channels: Int, seconds: Double? = nil) -> URL? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sox") else { return nil }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ag-flite")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let name = "\(input.deletingPathExtension().lastPathComponent.prefix(40))-\(pathHash(input.path))"
            + "-\(rate)-\(channels)" + (seconds.map { "-\($0)s" } ?? "")
        let out = dir.appendingPathComponent(name + ".wav")
        if FileManager.default.fileExists(atPath: out.path) { return out }
        let tmp = dir.appendingPathComponent(name + ".\(getpid()).tmp.wav")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        p.arguments = [input.path, "-r", "\(rate)", "-c", "\(channels)", "-b", "16", tmp.path]
            + (seconds.map { ["trim", "0", String($0)] } ?? [])
        try? p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { try? FileManager.default.removeItem(at: tmp); return nil }
        if (try? FileManager.default.moveItem(at: tmp, to: out)) == nil { try? FileManager.default.removeItem(at: tmp) }
        return out
    }

    /// FNV-1a of `path`: the same in every run (Swift's `hashValue` is seeded per process).
    static func pathHash(_ path: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in path.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return String(h, radix: 16)
    }
}
