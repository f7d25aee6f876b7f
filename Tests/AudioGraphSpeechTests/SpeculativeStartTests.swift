@testable import AudioGraphCore
@testable import AudioGraphSpeech
import AudioGraphTestSupport
import Foundation
import Testing

/// Between utterances the decoder starts at the vad's hints of possible speech, before the
/// onset is confirmed. That may change when partial results come, never what is recognised:
/// the real decoder and model, fed the same audio with and without hints.
@Suite(.enabled(if: SpeechModel.isDefaultInstalled, "Debian's pocketsphinx-en-us is not installed"))
struct SpeculativeStartTests {
    static let rate = 16000.0

    /// Flite speech said twice, 16 kHz, in faint noise (0.6 s before, 2 s between, 1.5 s
    /// after); where each saying starts and ends. The second is decoded as it arrives, the
    /// first only after its cepstral-mean look-ahead.
    static func speech() throws -> (samples: [Float], onsets: [Double], ends: [Double])? {
        guard SpeechModel.isDefaultInstalled, let wav = Flite.speech("go forward ten meters") else { return nil }
        let reader = try WAVFileReader(path: wav.path)
        try #require(reader.header.format == StreamFormat(sampleRate: rate, channelCount: 1))
        let n = reader.header.frameCount
        let buffer = AudioBuffer(format: reader.header.format, frameCapacity: n)
        reader.read(into: buffer, start: 0, count: n)
        let voice = Array(UnsafeBufferPointer(start: buffer.channel(0), count: n))
        let first = voice.firstIndex { abs($0) > 0.02 } ?? 0, last = voice.lastIndex { abs($0) > 0.02 } ?? n
        var x = Signals.noise(rms: 0.0005, seconds: 0.6, rate: rate)
        var onsets: [Double] = [], ends: [Double] = []
        for (i, gap) in [2.0, 1.5].enumerated() {
            onsets.append(Double(x.count + first) / rate)
            ends.append(Double(x.count + last) / rate)
            x += voice + Signals.noise(rms: 0.0005, seconds: gap, rate: rate, seed: UInt64(7 + i))
        }
        return (x, onsets, ends)
    }

    /// Decodes `x` in 64 ms blocks carrying `markers`; each event with the block it came in.
    func decode(_ x: [Float], _ markers: [StreamMarker]) throws -> [(block: Int, event: EngineEvent)] {
        var decoding: [Bool] = []
        return try decode(x, markers, decoding: &decoding)
    }

    /// `decode`, recording after each block whether the decoder was in an utterance.
    func decode(_ x: [Float], _ markers: [StreamMarker], decoding: inout [Bool]) throws
        -> [(block: Int, event: EngineEvent)] {
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
                                          emit: { e, _ in events.append((block, e)) }, isCancelled: { false })
        var inUtterance: [Bool] = []
        feed(x, markers, to: utterances) {
            inUtterance.append(decoder.inUtterance)
            block += 1
        }
        decoding = inUtterance
        return events
    }

    /// Feeds `x` to `utterances` in 64 ms blocks carrying `markers`, then finishes;
    /// `afterBlock` runs after each block.
    func feed(_ x: [Float], _ markers: [StreamMarker], to utterances: UtteranceDecoder, afterBlock: () -> Void = {}) {
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
            afterBlock()
            k += n
        }
        utterances.finish()
    }

    func finals(_ e: [(block: Int, event: EngineEvent)]) -> [RecognitionResult] {
        e.compactMap { if case .final(_, let r) = $0.event { r } else { nil } }
    }

    /// The plain markers of utterance `u` (from 1): its onset confirmed 0.3 s on, speech end, utterance end.
    func markers(_ u: Int, onset: Double, end: Double) -> [StreamMarker] {
        [StreamMarker(.speechStart, t: onset, decided: onset + 0.3),
         StreamMarker(.speechEnd, t: end, decided: end + 0.1),
         StreamMarker(.utteranceEnd, t: end, decided: end + 0.8, utterance: Int32(u))]
    }

    func block(_ t: Double) -> Int { Int(t * Self.rate) / 1024 }

    @Test(.flite) func aConfirmedHintChangesWhenPartialsMayComeNotWhatIsRecognised() throws {
        let (x, onsets, ends) = try #require(try Self.speech())
        let plain = markers(1, onset: onsets[0], end: ends[0]) + markers(2, onset: onsets[1], end: ends[1])
        let hints = onsets.map { StreamMarker(.speechPossible, t: $0, decided: $0 + 0.01, resolvesBy: $0 + 0.4) }
        let a = try decode(x, plain), b = try decode(x, (hints + plain).sorted { $0.decided < $1.decided })
        let fa = finals(a)
        try #require(fa.count == 2)
        #expect(fa.allSatisfy { $0.text.contains("forward") }, "\(fa.map(\.text))")
        #expect(finals(b) == fa, "\(finals(b).map(\.text)) vs \(fa.map(\.text))")
        // Decoding went on from each hint, but each utterance's partials come between its
        // confirmed onset and its end.
        let partials = b.compactMap { e -> (block: Int, utterance: Int)? in
            if case .partial(_, let u, _) = e.event { (e.block, u) } else { nil }
        }
        #expect(Set(partials.map(\.utterance)) == [1, 2])
        for p in partials {
            #expect(p.block >= block(onsets[p.utterance - 1] + 0.3) && p.block <= block(ends[p.utterance - 1] + 0.8),
                    "utterance \(p.utterance)'s partial in block \(p.block)")
        }
    }

    /// Clicks the vad dropped, before each utterance: their decoding is undone (the front
    /// end's noise estimate, which PocketSphinx keeps to itself, has seen them: scores may
    /// move a little).
    @Test(.flite) func aDroppedHintLeavesTheUtterancesAsTheyWere() throws {
        let (x, onsets, ends) = try #require(try Self.speech())
        let plain = markers(1, onset: onsets[0], end: ends[0]) + markers(2, onset: onsets[1], end: ends[1])
        let clicks = [0.2, ends[0] + 1.0].flatMap {
            [StreamMarker(.speechPossible, t: $0, decided: $0 + 0.01, resolvesBy: $0 + 0.3),
             StreamMarker(.speechDropped, t: $0 + 0.06, decided: $0 + 0.06)]
        }
        let fa = finals(try decode(x, plain)), fb = finals(try decode(x, (clicks + plain).sorted { $0.decided < $1.decided }))
        try #require(fa.count == 2 && fb.count == 2)
        for (p, q) in zip(fb, fa) {
            #expect(p.utterance == q.utterance && p.text == q.text, "\(p.text) vs \(q.text)")
            #expect(p.words.map(\.word) == q.words.map(\.word))
            // Within 3 frames: the undone decoding leaves a trace in PocketSphinx's own state.
            for (v, w) in zip(p.words, q.words) { #expect(abs(v.start - w.start) < 0.035 && abs(v.end - w.end) < 0.035, "\(v) vs \(w)") }
        }
    }

    /// Noise that keeps the vad's weak evidence up through the pause: its hint comes as the
    /// first utterance's speech ends and is still undecided when that utterance ends. The
    /// second utterance then starts decoding at that utterance end, before its onset is
    /// confirmed, and is recognised as without the hint. When the utterance end comes after
    /// the onset has begun, the onset's lead-in is not cut short.
    @Test(.flite) func possibleSpeechStillUndecidedAtAnUtteranceEndStartsTheNextThere() throws {
        let (x, onsets, ends) = try #require(try Self.speech())
        // The utterance end before the second onset; and after it, 0.1 s before the onset is
        // confirmed (a start 0.4 s before the utterance end would miss its first word).
        for (endsAt, confirmedAt) in [(onsets[1] - 0.1, onsets[1] + 0.3), (onsets[1] + 0.6, onsets[1] + 0.7)] {
            var plain = markers(1, onset: onsets[0], end: ends[0]) + markers(2, onset: onsets[1], end: ends[1])
            plain[2] = StreamMarker(.utteranceEnd, t: ends[0], decided: endsAt, utterance: 1)
            plain[3] = StreamMarker(.speechStart, t: onsets[1], decided: confirmedAt)
            let hint = StreamMarker(.speechPossible, t: ends[0], decided: ends[0] + 0.1, resolvesBy: ends[0] + 0.4)
            var da: [Bool] = [], db: [Bool] = []
            let fa = finals(try decode(x, plain, decoding: &da))
            let fb = finals(try decode(x, (plain + [hint]).sorted { $0.decided < $1.decided }, decoding: &db))
            try #require(fa.count == 2 && fb.count == 2)
            #expect(fb[0] == fa[0])
            #expect(fb[1].text == fa[1].text && fb[1].words.map(\.word) == fa[1].words.map(\.word), "\(fb[1].text) vs \(fa[1].text)")
            for (v, w) in zip(fb[1].words, fa[1].words) { #expect(abs(v.start - w.start) < 0.02 && abs(v.end - w.end) < 0.02) }
            let ue = block(endsAt), confirmed = block(confirmedAt)
            #expect(!da[ue] && db[ue] && ue < confirmed, "decoding from the utterance end (block \(ue)), before the confirmation")
        }
    }

    /// Speech the vad never confirms (dropped, then pending when the stream ends) adds nothing
    /// to what the confirmed utterance gave.
    @Test(.flite) func aHintNeverConfirmedLeavesNothing() throws {
        let (x, onsets, ends) = try #require(try Self.speech())
        let first = markers(1, onset: onsets[0], end: ends[0])
        let o = onsets[1]
        let unconfirmed = [StreamMarker(.speechPossible, t: o, decided: o + 0.01, resolvesBy: o + 0.3),
                           StreamMarker(.speechDropped, t: o + 0.5, decided: o + 0.5),
                           StreamMarker(.speechPossible, t: o + 0.6, decided: o + 0.61, resolvesBy: o + 0.9)]
        let a = try decode(x, first), b = try decode(x, first + unconfirmed)
        #expect(finals(a).count == 1)
        #expect(b.map(\.event) == a.map(\.event), "\(b.map(\.event))")
    }
}
