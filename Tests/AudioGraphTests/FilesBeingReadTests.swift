import AudioGraphCore
import AudioGraphTestSupport
import Foundation
import Testing

@testable import AudioGraph

/// A file one graph of the process reads is no other graph's sink while it reads it, whatever
/// path names it (a server's sessions, an app's graphs): truncating a mapped WAV under its
/// reader is SIGBUS, and the recording is lost. Once the reader is gone, the file may be written.
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
}
