import AudioGraphTestSupport
import Foundation
import Testing

/// The assistant loop offline at the sample rates and channel counts users record at: the
/// resampler in front delivers its output in bursts (an FFT low-pass at 8 kHz), and the
/// render thread's lockstep wait must never wait for what the decoder has not been given.
/// Bound: no block waits out the lockstep's patience (each give-up is a `warning` event),
/// rather than a wall-clock limit; the command is understood and answered at every rate.
@Suite struct OfflineAssistantRateTests {
    static let formats: [(rate: Int, channels: Int)] = [(8000, 1), (16000, 1), (44100, 1), (48000, 1),
                                                         (8000, 2), (16000, 2), (44100, 2), (48000, 2)]

    func events(_ r: CLI.Result) -> [[String: Any]] {
        r.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func user() throws -> URL {
        try #require(Flite.script([("hello computer", 1.2), ("find japanese restaurants nearby", 5)]))
    }

    @Test(.flite, arguments: 0..<formats.count)
    func wakeCommandAndAnswerAtAnyRate(_ i: Int) throws {
        let (rate, channels) = Self.formats[i]
        let input = try #require(Flite.convert(try user(), rate: rate, channels: channels))
        let r = try CLI.run(["run", "graphs/assistant.json", "--source", input.path, "--sink",
                             CLI.tempDir().appendingPathComponent("a.wav").path, "--json"])
        #expect(r.status == 0, "\(rate) Hz × \(channels): \(r.stderr)")
        let es = events(r)
        let stalls = es.filter { $0["type"] as? String == "warning" && ($0["message"] as? String)?.contains("lockstep") == true }
        #expect(stalls.isEmpty, "\(rate) Hz × \(channels): the render thread gave up waiting: \(stalls)")
        let finals = es.filter { $0["type"] as? String == "final" }.compactMap { $0["text"] as? String }
        #expect(finals.count == 1 && finals[0].contains("japanese restaurant"), "\(rate) Hz × \(channels): \(finals)")
        let said = es.filter { $0["type"] as? String == "speak-start" }.compactMap { $0["text"] as? String }
        #expect(said == finals.map { "okay, " + $0 }, "\(rate) Hz × \(channels): \(said)")
        let reasons = es.filter { $0["type"] as? String == "assistant" }.compactMap { $0["reason"] as? String }
        #expect(reasons == ["understood"], "\(rate) Hz × \(channels): \(reasons)")
    }

    /// A bursty converter in front does not make file runs depend on thread timing: two runs
    /// at 8 kHz give the same events at the same stream times.
    @Test(.flite) func burstyConversionIsStillDeterministic() throws {
        let input = try #require(Flite.convert(try user(), rate: 8000, channels: 1))
        func run() throws -> [String] {
            let r = try CLI.run(["run", "graphs/assistant.json", "--source", input.path, "--sink",
                                 CLI.tempDir().appendingPathComponent("a.wav").path, "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdoutLines.filter { !$0.contains("\"elapsed") && !$0.contains("\"type\":\"end") }
        }
        let first = try run(), second = try run()
        #expect(first.count > 5 && first == second)
    }
}
