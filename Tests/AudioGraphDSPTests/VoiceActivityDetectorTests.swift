import AudioGraph
import AudioGraphCore
import AudioGraphTestSupport
import Foundation
import Testing

@testable import AudioGraphDSP

/// The VAD on synthetic signals with known speech times.
@Suite struct VoiceActivityDetectorTests {
    static let rate = 16000.0

    /// Voiced bursts at `bursts` (start, end) seconds in white noise `noiseDB` below them.
    static func scene(_ bursts: [(Double, Double)], seconds: Double, noiseDB: Double = -25) -> [Float] {
        var x = Signals.noise(rms: 0.1 * pow10(noiseDB / 20), seconds: seconds, rate: rate)
        for (a, b) in bursts { Signals.place(Signals.voiced(seconds: b - a, rate: rate), into: &x, at: a, rate: rate) }
        return x
    }

    /// A fricative's hiss: white noise high-passed three times (a soft "th" or "f").
    static func hiss(seconds: Double) -> [Float] {
        var x = Signals.noise(rms: 0.004, seconds: seconds, rate: rate, seed: 7)
        for _ in 0..<3 { for i in stride(from: x.count - 1, to: 0, by: -1) { x[i] -= x[i - 1] } }
        return x
    }

    static func speech(_ events: [EngineEvent]) -> [(String, Double, Double)] {
        events.compactMap {
            switch $0 {
            case .speechStart(_, let t, let d): return ("start", t, d)
            case .speechEnd(_, let t, let d): return ("end", t, d)
            case .utteranceEnd(_, _, let t, let d): return ("utterance-end", t, d)
            default: return nil
            }
        }
    }

    func vad(_ x: [Float], _ params: [String: ParameterValue] = [:]) async throws -> [(String, Double, Double)] {
        Self.speech(try await OfflineRender.run("vad", params, input: [x], rate: Self.rate, registry: .builtin).events)
    }

    @Test func onsetAndOffsetOfABurstInNoise() async throws {
        let e = try await vad(Self.scene([(1.0, 2.2)], seconds: 3.5))
        #expect(e.map(\.0) == ["start", "end"])
        try #require(e.count == 2)
        #expect(abs(e[0].1 - 1.0) <= 0.03, "onset at \(e[0].1)")
        #expect(abs(e[1].1 - 2.2) <= 0.03, "offset at \(e[1].1)")
        #expect(e[0].2 > e[0].1 && e[0].2 - e[0].1 < 0.2, "decided after the onset, soon")
        #expect(e[1].2 > e[1].1 && e[1].2 - e[1].1 < 0.4, "decided after the offset, after the hangover")
    }

    @Test func aWordsDecayingTailBelongsToTheWord() async throws {
        // A vowel that dies away over 0.3 s (60 dB, down into the noise), as words end: the
        // offset is where the tail meets the noise, not where it falls below the talker's
        // loud level by the background margin (0.12 s into the decay).
        var x = Signals.noise(rms: 0.0003, seconds: 3, rate: Self.rate)
        var word = Signals.voiced(amplitude: 0.3, seconds: 1.3, rate: Self.rate)
        let decayStart = Int(1.0 * Self.rate)
        for i in decayStart..<word.count { word[i] *= Float(pow10(-3 * Double(i - decayStart) / (0.3 * Self.rate))) }
        Signals.place(word, into: &x, at: 0.5, rate: Self.rate)
        let e = try await vad(x)
        #expect(e.map(\.0) == ["start", "end"])
        let end = e.last?.1 ?? 0
        #expect(end > 1.5 + 0.2 && end < 1.8 + 0.03, "offset at \(end): decay from 1.5 s into the noise at 1.8 s")
    }

    @Test func silenceAndStationaryNoiseNeverTrigger() async throws {
        #expect(try await vad([Float](repeating: 0, count: 48000)).isEmpty)
        #expect(try await vad(Signals.noise(rms: 0.05, seconds: 5, rate: Self.rate)).isEmpty)
        var pinkish = Signals.noise(rms: 0.05, seconds: 5, rate: Self.rate)
        for i in 1..<pinkish.count { pinkish[i] = 0.95 * pinkish[i - 1] + 0.05 * pinkish[i] * 10 }
        #expect(try await vad(pinkish).isEmpty)
    }

    @Test func clicksShorterThanMinimumSpeechNeverTrigger() async throws {
        var x = Signals.noise(rms: 0.002, seconds: 3, rate: Self.rate)
        for at in [0.5, 1.2, 2.0] {
            Signals.place(Signals.voiced(amplitude: 0.5, seconds: 0.03, rate: Self.rate), into: &x, at: at, rate: Self.rate)
        }
        #expect(try await vad(x).isEmpty)
    }

    @Test func voicesFarBelowTheTalkerAreBackground() async throws {
        // A talker, then a voice 24 dB quieter (babble, someone across the room) in quiet noise.
        var x = Signals.noise(rms: 0.0005, seconds: 6, rate: Self.rate)
        Signals.place(Signals.voiced(amplitude: 0.3, seconds: 1.5, rate: Self.rate), into: &x, at: 0.5, rate: Self.rate)
        Signals.place(Signals.voiced(170, amplitude: 0.019, seconds: 1.5, rate: Self.rate), into: &x, at: 3.5, rate: Self.rate)
        let starts = { (e: [(String, Double, Double)]) in e.filter { $0.0 == "start" }.map(\.1) }
        let gated = starts(try await vad(x, ["background": 15]))
        #expect(gated.count == 1 && abs((gated.first ?? 0) - 0.5) < 0.05, "only the talker: \(gated)")
        let open = starts(try await vad(x, ["background": 0]))
        #expect(open.count == 2, "background 0 hears both: \(open)")
    }

    @Test func speechReachesTheOutputUnchangedAndProbabilitiesAre100PerSecond() async throws {
        let x = Self.scene([(0.5, 1.0)], seconds: 2)
        let r = try await OfflineRender.run("vad", ["probabilities": true], input: [x], rate: Self.rate, registry: .builtin)
        #expect(r.output[0] == x, "audio passes through unchanged")
        let p = r.events.compactMap { if case .probability(_, _, let p) = $0 { return p } else { return nil } }
        #expect(abs(p.count - 200) <= 3)
        #expect(p.allSatisfy { (0...1).contains($0) })
    }

    @Test func worksAtOtherRates() async throws {
        var x = Signals.noise(rms: 0.005, seconds: 3, rate: 44100)
        Signals.place(Signals.voiced(seconds: 1, rate: 44100), into: &x, at: 1, rate: 44100)
        let e = Self.speech(try await OfflineRender.run("vad", [:], input: [x], rate: 44100, registry: .builtin).events)
        #expect(e.map(\.0) == ["start", "end"])
    }

    @Test func speechEndingInsideAHissAnnouncesPossibleSpeech() async throws {
        // A hiss that goes on through the pause (noise that keeps the weak evidence up) starts
        // no run of its own: the vad announces it as possible speech as the speech ends, so
        // the recognizer can start decoding before the next onset. Silence announces nothing.
        func markers(hissing: Bool) async throws -> [StreamMarker] {
            var x = Self.scene([(0.5, 1.5)], seconds: 3)
            if hissing {
                Signals.place(Self.hiss(seconds: 1.7), into: &x, at: 1.2, rate: Self.rate)
            }
            return try await OfflineRender.run("vad", [:], input: [x], rate: Self.rate, registry: .builtin).markers
        }
        let hissing = try await markers(hissing: true)
        let end = hissing.firstIndex { $0.kind == .speechEnd }
        let hint = end.flatMap { e in hissing[(e + 1)...].first { $0.kind == .speechPossible } }
        #expect(hint != nil && hint?.decided == end.map { hissing[$0].decided }, "\(hissing.map(\.kind))")
        #expect(hissing.last?.kind == .speechDropped, "the hint is dropped where the hiss stops: \(hissing.map(\.kind))")
        let quiet = try await markers(hissing: false)
        #expect(quiet.map(\.kind).filter { $0 != .speechPossible && $0 != .speechDropped } == [.speechStart, .speechEnd])
        #expect(!quiet.drop { $0.kind != .speechEnd }.contains { $0.kind == .speechPossible }, "\(quiet.map(\.kind))")
    }
}

private func pow10(_ x: Double) -> Double { Foundation.pow(10, x) }
