import AudioGraphTestSupport
import Foundation
import Testing

/// The recognizer's `session-calibration` through the CLI, on the real decoder: a session's
/// first final carries the model's confidences, later finals move with what the session's
/// earlier words say, and by default (off) every final keeps the model's.
@Suite struct SessionCalibrationCLITests {
    static func finals(_ r: CLI.Result) -> [[[String: Any]]] {
        r.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["type"] as? String == "final" }
            .map { $0["words"] as? [[String: Any]] ?? [] }
    }

    @Test(.flite) func laterFinalsFollowTheSessionAndTheDefaultLeavesThemTheModels() throws {
        let joined = try #require(Flite.speech(["go forward ten meters", "find japanese restaurants nearby", "turn left at the corner"],
                                               pause: 2))
        let on = try CLI.run(["run", "graphs/dictation.json", "--source", joined.path, "--json", "--set", "asr.session-calibration=true"])
        let off = try CLI.run(["run", "graphs/dictation.json", "--source", joined.path, "--json"])
        #expect(on.status == 0 && off.status == 0, "\(on.stderr)\(off.stderr)")
        let a = Self.finals(on), b = Self.finals(off)
        try #require(a.count == 3 && b.count == 3)
        func words(_ f: [[String: Any]]) -> [String] { f.compactMap { $0["word"] as? String } }
        func confidences(_ f: [[String: Any]]) -> [Double] { f.compactMap { $0["confidence"] as? Double } }
        #expect(a.map(words) == b.map(words))
        // The first final: nothing heard before it, the model's own confidences.
        #expect(confidences(a[0]) == confidences(b[0]))
        // Later finals moved, all one way, and their words keep their order of confidence.
        for k in 1..<3 {
            let x = confidences(a[k]), y = confidences(b[k])
            try #require(x.count == y.count && !x.isEmpty)
            #expect(x != y, "final \(k + 1): \(x) \(y)")
            let up = zip(x, y).map { $0 > $1 }
            #expect(Set(up).count == 1, "final \(k + 1): \(x) against \(y)")
            for i in x.indices { for j in x.indices where y[i] < y[j] { #expect(x[i] <= x[j]) } }
        }
    }
}
