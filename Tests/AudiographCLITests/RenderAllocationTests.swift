import Foundation
import Testing

/// The render thread allocates nothing per block: `audiograph-bench allocations` (release
/// build, malloc counted on the render thread) over a gain chain, the same with a tap, and the
/// speech front end (resampler, mixer, level meter, vad with probabilities, end-of-speech)
/// with a tap, a wav-sink, a file-source into a recognizer, and a speech-synth, each held to
/// its pinned count.
@Suite struct RenderAllocationTests {
    static let bench = CLI.packageRoot.appendingPathComponent(".build/release/audiograph-bench")

    /// Allocations allowed per graph over its whole run (60 s of audio, 2814 blocks).
    static let pinned = ["gain": 0, "gain-with-tap": 0, "speech-front-end-with-tap": 0, "wav-sink": 0,
                         "file-source-recognizer": 0, "echo-canceller": 0, "speech-synth": 0]

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: bench.path),
                   "the release audiograph-bench is not built (Tools/test builds it: Tools/build-release --product audiograph-bench)"))
    func renderPathAllocatesNothing() throws {
        let p = Process()
        p.executableURL = Self.bench
        p.arguments = ["allocations"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let rows = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        var counts: [String: Int] = [:]
        for r in rows { if let g = r["graph"] as? String, let n = r["allocations"] as? Int { counts[g] = n } }
        #expect((counts["control"] ?? 0) >= 1, "the counter sees an allocation made on purpose")
        for (graph, allowed) in Self.pinned {
            let n = try #require(counts[graph], "\(graph) was measured")
            #expect(n <= allowed, "\(graph): \(n) allocations on the render thread (pinned: \(allowed))")
        }
    }
}
