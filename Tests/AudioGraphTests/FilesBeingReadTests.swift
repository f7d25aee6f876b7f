import AudioGraphCore
import AudioGraphTestSupport
import Foundation
import Testing

@testable import AudioGraph

/// A file one graph of the process reads is no other graph's sink while it reads it, whatever
/// path names it (a server's sessions, an app's graphs): truncating a mapped WAV under its
/// reader is SIGBUS, and the recording is lost. Once the reader is gone, the file may be written.
/// Nor is a file one sink writes another's (FilesBeingWritten).
@Suite struct FilesBeingReadTests {
    static let format = StreamFormat(sampleRate: 16000, channelCount: 1)

    @Test func aFileAnotherGraphReadsIsNoSinkUntilItsReaderIsGone() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("being-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let recording = dir.appendingPathComponent("talk.wav").path
        let writer = try NodeHarness("wav-sink", ["path": .string(recording)], inputs: [Self.format], maxFrames: 1600, registry: .builtin)
        writer.push([[Float](repeating: 0.25, count: 1600)])
        writer.endInput()
        try writer.finish()
        // Another name for the same file.
        let alias = dir.appendingPathComponent("alias.wav").path
        try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: recording)

        do {
            let reader = try NodeHarness("file-source", ["path": .string(recording)], maxFrames: 1600, registry: .builtin)
            do {
                _ = try NodeHarness("wav-sink", ["path": .string(alias)], inputs: [Self.format], maxFrames: 1600, registry: .builtin)
                Issue.record("a sink opened the file another graph reads")
            } catch let e as EngineError {
                #expect(e.description.contains("is a file this run reads"), "\(e)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: recording)).count > 3200, "the recording is whole")
            withExtendedLifetime(reader) {}
        }
        // The reader is gone.
        let after = try NodeHarness("wav-sink", ["path": .string(alias)], inputs: [Self.format], maxFrames: 1600, registry: .builtin)
        after.endInput()
        try after.finish()
    }

    /// Two sinks of the process never write one file, whatever paths name it: the second is
    /// refused and the first's audio is whole (before, both wrote it, each at its own offsets,
    /// and the file held their audio mixed). Devices such as /dev/null take any number; once
    /// the first writer has closed, the file may be written again.
    @Test func aFileAnotherSinkWritesIsNoSecondSink() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("being-written-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.wav").path
        let first = try NodeHarness("wav-sink", ["path": .string(out)], inputs: [Self.format], maxFrames: 1600, registry: .builtin)
        first.push([[Float](repeating: 0.25, count: 1600)])
        for other in [out, dir.appendingPathComponent("./out.wav").path] {
            do {
                _ = try NodeHarness("wav-sink", ["path": .string(other)], inputs: [Self.format], maxFrames: 1600, registry: .builtin)
                Issue.record("a second sink opened \(other)")
            } catch let e as EngineError {
                #expect(e.description.contains("is a file another sink of this run writes"), "\(e)")
            }
        }
        first.push([[Float](repeating: 0.25, count: 1600)])
        first.endInput()
        try first.finish()
        let (samples, _) = try WAVFile.monoSamples(path: out)
        #expect(samples.count == 3200 && samples.allSatisfy { $0 == 0.25 }, "the first sink's audio, whole")
        let nulls = try (0..<2).map { _ in try NodeHarness("wav-sink", ["path": .string("/dev/null")], inputs: [Self.format], maxFrames: 1600, registry: .builtin) }
        for n in nulls { n.endInput(); try n.finish() }
        let again = try NodeHarness("wav-sink", ["path": .string(out)], inputs: [Self.format], maxFrames: 1600, registry: .builtin)
        again.endInput()
        try again.finish()
    }
}
