import AudioGraphTestSupport
import Foundation
import Testing

/// A live run's blocks vary with the server's timing; the decoder's results must not: the
/// same audio cut into other blocks gives the same finals, word for word and time for time.
@Suite(.enabled(if: Flite.isAvailable, "flite is not installed"))
struct BlockInvarianceTests {
    @Test(.flite) func finalsDoNotDependOnTheBlockSize() throws {
        let wav = try #require(Flite.speech(["find japanese restaurants nearby", "go forward ten meters"], pause: 1.5))
        func finals(_ block: Int) throws -> [String] {
            let r = try CLI.run(["run", "graphs/dictation.json", "--source", wav.path, "--json", "--block", "\(block)"])
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdoutLines.filter { $0.contains(#""type":"final""#) }.map { line in
                // Text and word times (scores and confidences may differ in their last digits:
                // PocketSphinx's own state keeps traces of how it was fed).
                let o = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
                let words = (o["words"] as? [[String: Any]] ?? []).map { "\($0["word"] ?? "") \($0["start"] ?? "") \($0["end"] ?? "")" }
                return "\(o["text"] ?? "") | \(o["start"] ?? "")-\(o["end"] ?? "") | \(words.joined(separator: ", "))"
            }
        }
        let reference = try finals(1024)
        #expect(reference.count == 2)
        for block in [160, 333, 777, 4096] {
            #expect(try finals(block) == reference, "block \(block)")
        }
    }
}
