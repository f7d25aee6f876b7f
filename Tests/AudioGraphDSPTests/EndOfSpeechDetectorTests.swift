import AudioGraph
import AudioGraphCore
import AudioGraphTestSupport
import Foundation
import Testing

/// The end-of-speech detector behind the vad, on the vad tests' synthetic scenes with known
/// speech times.
@Suite struct EndOfSpeechDetectorTests {

    func eos(_ x: [Float], _ params: [String: ParameterValue]) async throws -> ([(String, Double, Double)], EngineEvent?) {
        let r = try await OfflineRender.run(chain: [("vad", [:]), ("end-of-speech", params)], input: [x], rate: VoiceActivityDetectorTests.rate,
                                            registry: .builtin)
        return (VoiceActivityDetectorTests.speech(r.events).filter { $0.0 == "utterance-end" }, r.events.last)
    }

    @Test func aPauseShorterThanTheWindowNeverSplits() async throws {
        let x = VoiceActivityDetectorTests.scene([(0.5, 1.5), (1.8, 2.6)], seconds: 4)
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
        var x = VoiceActivityDetectorTests.scene([(0.5, 1.5), (2.07, 2.8)], seconds: 4)
        Signals.place(VoiceActivityDetectorTests.hiss(seconds: 0.15), into: &x, at: 1.92, rate: VoiceActivityDetectorTests.rate)
        let starts = try await VoiceActivityDetectorTests().vad(x).filter { $0.0 == "start" }
        #expect(starts.count == 2 && abs(starts[1].1 - 1.92) < 0.03 && starts[1].2 - 1.5 > 0.6,
                "onset back-dated to the hiss, decided after the window: \(starts)")
        let (u, _) = try await eos(x, ["mode": "short"])
        #expect(u.count == 1, "\(u)")
    }

    @Test func speechResumingJustInsideTheWindowContinuesTheUtterance() async throws {
        // A 0.45 s pause: the vad confirms the resumed speech ~0.1 s after its onset, i.e.
        // after the 0.5 s window has elapsed; the utterance must still not be split.
        let x = VoiceActivityDetectorTests.scene([(0.5, 1.5), (1.95, 2.6)], seconds: 4)
        let (u, _) = try await eos(x, ["mode": "short"])
        #expect(u.count == 1, "\(u)")
    }

    @Test func anUtteranceEndReachesDownstreamBeforeTheNextStart() async throws {
        // Speech resumes 0.6 s after the burst (0.54 s after the offset the vad gives it, with
        // the burst's decay), in the block in which the window elapses. Downstream (the
        // recognizer) must see that utterance-end before the new speech-start, or it takes the
        // start as part of the old utterance and drops the new one.
        let x = VoiceActivityDetectorTests.scene([(0.5, 1.5), (2.1, 2.8)], seconds: 4)
        let r = try await OfflineRender.run(chain: [("vad", [:]), ("end-of-speech", ["mode": "short"])], input: [x],
                                            rate: VoiceActivityDetectorTests.rate, registry: .builtin)
        let seen = r.markers.map(\.kind).filter { $0 == .speechStart || $0 == .utteranceEnd }
        #expect(seen == [.speechStart, .utteranceEnd, .speechStart, .utteranceEnd], "\(seen)")
    }

    @Test func aLongerPauseSplitsInShortModeButNotInLong() async throws {
        let x = VoiceActivityDetectorTests.scene([(0.5, 1.5), (2.3, 3.0)], seconds: 5)
        #expect(try await eos(x, ["mode": "short"]).0.count == 2)
        #expect(try await eos(x, ["mode": "long"]).0.count == 1)
        #expect(try await eos(x, ["silence": 0.3]).0.count == 2)
    }

    @Test func modeNoneOnlyClosesAtTheEndOfInput() async throws {
        let x = VoiceActivityDetectorTests.scene([(0.5, 1.0), (3.0, 3.5)], seconds: 4)
        let (u, _) = try await eos(x, ["mode": "none"])
        #expect(u.count == 1 && (u.first?.2 ?? 0) >= 3.99)
    }

    @Test func noSpeechTimeoutEndsTheSession() async throws {
        let (u, last) = try await eos(Signals.noise(rms: 0.001, seconds: 8, rate: VoiceActivityDetectorTests.rate), ["no-speech-timeout": 2])
        #expect(u.isEmpty)
        #expect(last == .end(.noSpeech))
    }

    @Test func maxDurationClosesAtTheNextPause() async throws {
        // Speech with 0.3 s pauses (shorter than the window) for 6 s.
        let x = VoiceActivityDetectorTests.scene([(0.5, 2.0), (2.3, 3.8), (4.1, 5.6), (5.9, 6.5)], seconds: 7.5)
        #expect(try await eos(x, ["mode": "short"]).0.count == 1, "no limit hit: one utterance")
        let (u, _) = try await eos(x, ["mode": "short", "max-duration": 2.5])
        #expect(u.count == 2, "closed at the first pause after 2.5 s (3.8 s), then by the silence: \(u)")
        #expect(abs((u.first?.1 ?? 0) - 3.8) < 0.05)
    }

    @Test func maxDurationCutsSpeechWithoutPauses() async throws {
        let x = VoiceActivityDetectorTests.scene([(0.5, 14.5)], seconds: 15)
        let (u, _) = try await eos(x, ["max-duration": 1.0])
        #expect(u.count >= 2, "a 14 s stretch is cut at 1 + 10 s: \(u)")
        #expect(abs((u.first?.1 ?? 0) - 11.5) < 0.05)
    }

    /// Where a hard cut starts the next utterance in mid-speech, that start is one record:
    /// the marker the recognizer reads and a speech-start event from end-of-speech, together.
    @Test func aHardCutsNewStartIsAnEventAndAMarker() async throws {
        let x = VoiceActivityDetectorTests.scene([(0.5, 14.5)], seconds: 15)
        let r = try await OfflineRender.run(chain: [("vad", [:]), ("end-of-speech", ["max-duration": 1.0])], input: [x],
                                            rate: VoiceActivityDetectorTests.rate, registry: .builtin)
        let starts = r.events.compactMap { e -> (String, Double)? in
            if case .speechStart(let node, let t, _) = e { return (node, t) } else { return nil }
        }
        let cut = try #require(starts.first { $0.0 == "node" }, "end-of-speech reports the start it makes: \(starts)")
        #expect(abs(cut.1 - 11.5) < 0.05)
        #expect(r.markers.contains { $0.kind == .speechStart && abs($0.t - cut.1) < 1e-9 })
    }
}
