import AudioGraph
import AudioGraphCore
import AudioGraphTestSupport
import Foundation
import Testing

/// The WAV reader decodes every encoding it accepts as sox does: 32-bit float, mu-law,
/// A-law and unsigned 8-bit, each made by sox from the same 16-bit file and compared with
/// sox's own decoding of it to 32-bit float.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sox"), "sox is not installed (Tools/install-deps installs it)"))
struct WAVEncodingTests {
    static let format = StreamFormat(sampleRate: 16000, channelCount: 1)

    /// A file's samples as file-source plays them, through the node harness.
    static func played(_ path: String) throws -> [Float] {
        let h = try NodeHarness("file-source", ["path": .string(path)], registry: .builtin)
        while !h.isEnded { h.pull(frames: 1000) }
        try h.finish()
        return h.takeOutput().first ?? []
    }

    static func sox(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        p.arguments = args
        try p.run()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "sox \(args.joined(separator: " "))")
    }

    @Test(arguments: [("f32", ["-e", "floating-point", "-b", "32"]), ("mu-law", ["-e", "mu-law", "-b", "8"]),
                      ("a-law", ["-e", "a-law", "-b", "8"]), ("u8", ["-e", "unsigned-integer", "-b", "8"]),
                      ("s24", ["-e", "signed-integer", "-b", "24"]), ("s32", ["-e", "signed-integer", "-b", "32"])])
    func decodesAsSoxDoes(name: String, encoding: [String]) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wav-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // Half a second of a decaying chirp, loud to quiet, through a 16-bit file.
        let source = dir.appendingPathComponent("s16.wav").path
        let signal: [Float] = (0..<8000).map { i in
            let t = Float(i) / 16000
            return 0.9 * exp(-6 * t) * sin(2 * .pi * (200 + 3000 * t) * t)
        }
        let writer = try NodeHarness("wav-sink", ["path": .string(source), "format": "s16"], inputs: [Self.format],
                                     maxFrames: signal.count, registry: .builtin)
        writer.push([signal])
        writer.endInput()
        try writer.finish()
        let encoded = dir.appendingPathComponent("\(name).wav").path, reference = dir.appendingPathComponent("ref.wav").path
        try Self.sox([source] + encoding + [encoded])
        try Self.sox([encoded, "-e", "floating-point", "-b", "32", reference])
        let ours = try Self.played(encoded), theirs = try Self.played(reference)
        #expect(ours.count == signal.count && theirs.count == signal.count)
        let error = zip(ours, theirs).map { abs($0 - $1) }.max() ?? 1
        #expect(error <= 1e-6, "\(name): off sox's decoding by \(error)")
        // And near the original, within the encoding's own precision.
        let loss = zip(ours, signal).map { abs($0 - $1) }.max() ?? 1
        #expect(loss < (name == "u8" || name.hasSuffix("law") ? 0.05 : 1e-4), "\(name): \(loss) from the original")
    }
}
