@testable import AudioGraphCore
@testable import AudioGraphSpeech
import AudioGraphTestSupport
import Foundation
import Testing

/// Between utterances the decoder starts at the vad's hints of possible speech, before the
/// onset is confirmed. That may change when partial results come, never what is recognised:
/// the real decoder and model, fed the same audio with and without hints.
@Suite struct SpeculativeStartTests {
    static let rate = 16000.0

    /// Flite speech, 16 kHz, with 0.6 s of faint noise before and 1.5 s after; and where it starts and ends.
    static func speech() throws -> (samples: [Float], onset: Double, end: Double)? {
        guard SpeechModel.isDefaultInstalled, let wav = Flite.speech("go forward ten meters") else { return nil }
        let reader = try WAVFileReader(path: wav.path)
        try #require(reader.header.format == StreamFormat(sampleRate: rate, channelCount: 1))
        let n = reader.header.frameCount
        let buffer = AudioBuffer(format: reader.header.format, frameCapacity: n)
        reader.read(into: buffer, start: 0, count: n)
        let voice = Array(UnsafeBufferPointer(start: buffer.channel(0), count: n))
        let before = Signals.noise(rms: 0.0005, seconds: 0.6, rate: rate)
        let after = Signals.noise(rms: 0.0005, seconds: 1.5, rate: rate, seed: 7)
        let first = voice.firstIndex { abs($0) > 0.02 } ?? 0, last = voice.lastIndex { abs($0) > 0.02 } ?? voice.count
        return (before + voice + after, Double(before.count + first) / rate, Double(before.count + last) / rate)
    }

    /// Decodes `x` in 64 ms blocks carrying `markers`; each event with the block it came in.
    func decode(_ x: [Float], _ markers: [StreamMarker]) throws -> [(block: Int, event: EngineEvent)] {
        let decoder = try PocketSphinxDecoder(
            hmm: SpeechModel.defaultHMM, dict: SpeechModel.defaultDict, search: .languageModel(SpeechModel.defaultLM),
            limits: .init(hmms: 4000, wordExits: 10), dropsSilence: false)
        decoder.warmUp()
        var events: [(block: Int, event: EngineEvent)] = []
        var block = 0
        let settings = UtteranceDecoder.Settings(
            nodeId: "asr", segmentation: .endOfSpeech, finalPass: .live, partialFrames: 4000, alternatives: 3,
            cmnLookahead: 0.1, decodesInParts: true)
        let utterances = UtteranceDecoder(settings: settings, decoder: decoder, blockCapacity: 1024,
                                          emit: { events.append((block, $0)) }, isCancelled: { false })
        let buffer = AudioBuffer(format: StreamFormat(sampleRate: Self.rate, channelCount: 1), frameCapacity: 1024)
        var k = 0
        while k < x.count {
            let n = min(1024, x.count - k)
            buffer.sampleTime = Int64(k)
            buffer.frameLength = n
            buffer.clearMarkers()
            for i in 0..<n { buffer.channel(0)[i] = x[k + i] }
            let (from, to) = (Double(k) / Self.rate, Double(k + n) / Self.rate)
            for m in markers where m.decided >= from && m.decided < to { buffer.addMarker(m) }
            utterances.take(buffer)
            k += n
            block += 1
        }
        utterances.finish()
        return events
    }

    func finals(_ e: [(block: Int, event: EngineEvent)]) -> [RecognitionResult] {
        e.compactMap { if case .final(_, let r) = $0.event { r } else { nil } }
    }

    /// The plain markers of one utterance: its confirmed onset, speech end and utterance end.
    func markers(onset: Double, end: Double) -> [StreamMarker] {
        [StreamMarker(.speechStart, t: onset, decided: onset + 0.15),
         StreamMarker(.speechEnd, t: end, decided: end + 0.1),
         StreamMarker(.utteranceEnd, t: end, decided: end + 0.8, utterance: 1)]
    }

    @Test func aConfirmedHintChangesWhenPartialsMayComeNotWhatIsRecognised() throws {
        guard let (x, onset, end) = try Self.speech() else { return }
        let plain = markers(onset: onset, end: end)
        let hinted = [StreamMarker(.speechPossible, t: onset, decided: onset + 0.01, resolvesBy: onset + 0.3)] + plain
        let a = try decode(x, plain), b = try decode(x, hinted)
        let fa = finals(a)
        try #require(fa.count == 1)
        #expect(fa[0].text.contains("forward"), "\(fa[0].text)")
        #expect(finals(b) == fa, "\(finals(b).map(\.text)) vs \(fa.map(\.text))")
        // Decoding went on from the hint, but no partial before the onset was confirmed.
        let confirmedBlock = Int((onset + 0.15) * Self.rate) / 1024
        let partials = b.filter { if case .partial = $0.event { true } else { false } }
        #expect(!partials.isEmpty && partials.allSatisfy { $0.block >= confirmedBlock })
    }

    /// A click in the lead-in that the vad dropped: its decoding is undone (the front end's
    /// noise estimate, which PocketSphinx keeps to itself, has seen it: scores may move a little).
    @Test func aDroppedHintLeavesTheUtteranceAsItWas() throws {
        guard let (x, onset, end) = try Self.speech() else { return }
        let plain = markers(onset: onset, end: end)
        let dropped = [StreamMarker(.speechPossible, t: 0.2, decided: 0.21, resolvesBy: 0.5),
                       StreamMarker(.speechDropped, t: 0.26, decided: 0.26)] + plain
        let fa = finals(try decode(x, plain)), fb = finals(try decode(x, dropped))
        try #require(fa.count == 1 && fb.count == 1)
        #expect(fb[0].utterance == 1 && fb[0].text == fa[0].text, "\(fb[0].text) vs \(fa[0].text)")
        #expect(fb[0].words.map(\.word) == fa[0].words.map(\.word))
        for (p, q) in zip(fb[0].words, fa[0].words) { #expect(abs(p.start - q.start) < 0.02 && abs(p.end - q.end) < 0.02) }
    }

    @Test func aHintNeverConfirmedLeavesNothing() throws {
        guard let (x, onset, _) = try Self.speech() else { return }
        // Possible speech dropped, then possible speech the stream ends on: no utterance.
        let e = try decode(x, [StreamMarker(.speechPossible, t: onset, decided: onset + 0.01, resolvesBy: onset + 0.3),
                               StreamMarker(.speechDropped, t: onset + 0.2, decided: onset + 0.2),
                               StreamMarker(.speechPossible, t: onset + 0.3, decided: onset + 0.31, resolvesBy: onset + 0.6)])
        #expect(e.isEmpty, "\(e.map(\.event))")
    }
}
