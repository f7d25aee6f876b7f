import AudioGraph
import AudioGraphCore
import AudioGraphTestSupport
import Testing

@testable import AudioGraphDSP

/// The VAD and end-of-speech detector on synthetic signals with known speech times.
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
        guard e.count == 2 else { return }
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
        let gated = starts(try await vad(x))
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

    // MARK: end-of-speech

    func eos(_ x: [Float], _ params: [String: ParameterValue]) async throws -> ([(String, Double, Double)], EngineEvent?) {
        let r = try await OfflineRender.run(chain: [("vad", [:]), ("end-of-speech", params)], input: [x], rate: Self.rate,
                                            registry: .builtin)
        return (Self.speech(r.events).filter { $0.0 == "utterance-end" }, r.events.last)
    }

    @Test func aPauseShorterThanTheWindowNeverSplits() async throws {
        let x = Self.scene([(0.5, 1.5), (1.8, 2.6)], seconds: 4)
        let (u, _) = try await eos(x, ["mode": "short"])
        #expect(u.count == 1)
        #expect(abs((u.first?.1 ?? 0) - 2.6) < 0.05, "back-dated to the end of speech")
        // One silence window later, plus the 0.03 s the vad may take to announce a new sound.
        #expect(abs((u.first?.2 ?? 0) - 3.13) < 0.05, "decided one silence window later")
    }

    @Test func speechResumingAfterASoftLeadInContinuesTheUtterance() async throws {
        // A 0.42 s pause, then 0.15 s of hiss (a soft "th") before the voice: the vad back-dates
        // the onset to the hiss but confirms it 0.23 s after that, once the window has elapsed.
        // The hiss, announced as possible speech, holds the utterance open until then.
        var x = Self.scene([(0.5, 1.5), (2.07, 2.8)], seconds: 4)
        Signals.place(Self.hiss(seconds: 0.15), into: &x, at: 1.92, rate: Self.rate)
        let starts = try await vad(x).filter { $0.0 == "start" }
        #expect(starts.count == 2 && abs(starts[1].1 - 1.92) < 0.03 && starts[1].2 - 1.5 > 0.6,
                "onset back-dated to the hiss, decided after the window: \(starts)")
        let (u, _) = try await eos(x, ["mode": "short"])
        #expect(u.count == 1, "\(u)")
    }

    @Test func speechResumingJustInsideTheWindowContinuesTheUtterance() async throws {
        // A 0.45 s pause: the vad confirms the resumed speech ~0.1 s after its onset, i.e.
        // after the 0.5 s window has elapsed; the utterance must still not be split.
        let x = Self.scene([(0.5, 1.5), (1.95, 2.6)], seconds: 4)
        let (u, _) = try await eos(x, ["mode": "short"])
        #expect(u.count == 1, "\(u)")
    }

    @Test func anUtteranceEndReachesDownstreamBeforeTheNextStart() async throws {
        // Speech resumes 0.55 s after the offset, in the block in which the window elapses.
        // Downstream (the recognizer) must see that utterance-end before the new
        // speech-start, or it takes the start as part of the old utterance and drops the new one.
        let x = Self.scene([(0.5, 1.5), (2.05, 2.8)], seconds: 4)
        let r = try await OfflineRender.run(chain: [("vad", [:]), ("end-of-speech", ["mode": "short"])], input: [x],
                                            rate: Self.rate, registry: .builtin)
        let seen = r.markers.map(\.kind).filter { $0 == .speechStart || $0 == .utteranceEnd }
        #expect(seen == [.speechStart, .utteranceEnd, .speechStart, .utteranceEnd], "\(seen)")
    }

    @Test func aLongerPauseSplitsInShortModeButNotInLong() async throws {
        let x = Self.scene([(0.5, 1.5), (2.3, 3.0)], seconds: 5)
        #expect(try await eos(x, ["mode": "short"]).0.count == 2)
        #expect(try await eos(x, ["mode": "long"]).0.count == 1)
        #expect(try await eos(x, ["silence": 0.3]).0.count == 2)
    }

    @Test func modeNoneOnlyClosesAtTheEndOfInput() async throws {
        let x = Self.scene([(0.5, 1.0), (3.0, 3.5)], seconds: 4)
        let (u, _) = try await eos(x, ["mode": "none"])
        #expect(u.count == 1 && (u.first?.2 ?? 0) >= 3.99)
    }

    @Test func noSpeechTimeoutEndsTheSession() async throws {
        let (u, last) = try await eos(Signals.noise(rms: 0.001, seconds: 8, rate: Self.rate), ["no-speech-timeout": 2])
        #expect(u.isEmpty)
        #expect(last == .end(.noSpeech))
    }

    @Test func maxDurationClosesAtTheNextPause() async throws {
        // Speech with 0.3 s pauses (shorter than the window) for 6 s.
        let x = Self.scene([(0.5, 2.0), (2.3, 3.8), (4.1, 5.6), (5.9, 6.5)], seconds: 7.5)
        #expect(try await eos(x, ["mode": "short"]).0.count == 1, "no limit hit: one utterance")
        let (u, _) = try await eos(x, ["mode": "short", "max-duration": 2.5])
        #expect(u.count == 2, "closed at the first pause after 2.5 s (3.8 s), then by the silence: \(u)")
        #expect(abs((u.first?.1 ?? 0) - 3.8) < 0.05)
    }

    @Test func maxDurationCutsSpeechWithoutPauses() async throws {
        let x = Self.scene([(0.5, 14.5)], seconds: 15)
        let (u, _) = try await eos(x, ["max-duration": 1.0])
        #expect(u.count >= 2, "a 14 s stretch is cut at 1 + 10 s: \(u)")
        #expect(abs((u.first?.1 ?? 0) - 11.5) < 0.05)
    }
}

private func pow10(_ x: Double) -> Double { Foundation.pow(10, x) }
import Foundation

