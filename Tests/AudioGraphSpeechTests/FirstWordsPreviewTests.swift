@testable import AudioGraphCore
@testable import AudioGraphSpeech
import AudioGraphTestSupport
import Foundation
import Testing

/// The session's first utterance holds its audio to measure a cepstral mean; a cheaper
/// search decodes it first so its first words show sooner. The real decoder and model.
@Suite(.enabled(if: SpeechModel.isDefaultInstalled, "Debian's pocketsphinx-en-us is not installed"))
struct FirstWordsPreviewTests {
    func decoder(preview: Bool) throws -> PocketSphinxDecoder {
        let d = try PocketSphinxDecoder(
            hmm: SpeechModel.defaultHMM, dict: SpeechModel.defaultDict, search: .languageModel(SpeechModel.defaultLM),
            limits: .init(hmms: 4000, wordExits: 10), dropsSilence: false,
            preview: preview ? .init(hmms: 1000, wordExits: 10) : nil)
        d.warmUp()
        return d
    }

    /// A decoder with a preview whose searches and warm-up wait for `prepareForSpeech`.
    func decoderPreparedLater() throws -> PocketSphinxDecoder {
        try PocketSphinxDecoder(
            hmm: SpeechModel.defaultHMM, dict: SpeechModel.defaultDict, search: .languageModel(SpeechModel.defaultLM),
            limits: .init(hmms: 4000, wordExits: 10), dropsSilence: false,
            preview: .init(hmms: 1000, wordExits: 10), preparedLater: true)
    }

    /// flite's "go forward ten meters" as 16-bit samples.
    static func saying() throws -> [Int16]? {
        guard SpeechModel.isDefaultInstalled else { return nil }
        return try Flite.samples16("go forward ten meters")
    }

    /// Decodes `x` as one utterance normalised by its own cepstral mean, after a preview of
    /// it when `preview` (whose hypothesis is returned too).
    func decode(_ d: PocketSphinxDecoder, _ x: [Int16], preview: Bool) -> (RecognitionResult, preview: String?) {
        d.startCepstralMean()
        x.withUnsafeBufferPointer { d.measureCepstralMean($0.baseAddress!, count: $0.count) }
        d.startUtterance()
        d.applyCepstralMean()
        var heard: String?
        if preview {
            x.withUnsafeBufferPointer { d.preview($0.baseAddress!, count: $0.count) }
            heard = d.isPreviewing ? d.hypothesis() : nil
            d.endPreview()
            d.applyCepstralMean()
        }
        x.withUnsafeBufferPointer { d.process($0.baseAddress!, count: $0.count) }
        d.endUtterance()
        return (d.result(utterance: 1, start: 0, end: Double(x.count) / 16000, alternatives: 0), heard)
    }

    /// The preview search finds the words, and the utterance decoded after it comes out as
    /// it does with no preview: words and word times (the preview's frames are not counted).
    @Test(.flite) func thePreviewFindsWordsAndLeavesTheUtteranceAsItWas() throws {
        let x = try #require(try Self.saying())
        let plain = try decoder(preview: false), previewing = try decoder(preview: true)
        #expect(!plain.hasPreview && previewing.hasPreview)
        let (a, _) = decode(plain, x, preview: false)
        let (b, heard) = decode(previewing, x, preview: true)
        #expect(heard?.contains("forward") == true, "preview heard \(String(describing: heard))")
        #expect(a.text == "go forward ten meters")
        #expect(b.text == a.text, "\(b.text) vs \(a.text)")
        #expect(b.words.map(\.word) == a.words.map(\.word))
        for (v, w) in zip(b.words, a.words) { #expect(abs(v.start - w.start) < 0.02 && abs(v.end - w.end) < 0.02) }
    }

    /// A decoder whose preview search and warm-up wait for `prepareForSpeech` (the recognizer's
    /// background load: a stream with no speech never pays for them) has neither until then;
    /// its first utterance prepares it, and it previews and decodes as one prepared at load:
    /// the same preview words, the same result to the word times. While the preview search
    /// exists, the main one is set aside (so the two never weigh at once) and built again
    /// when the utterance needs it.
    @Test(.flite) func aDecoderPreparedForSpeechLaterDecodesAsOnePreparedAtLoad() throws {
        let x = try #require(try Self.saying())
        let now = try decoder(preview: true), later = try decoderPreparedLater()
        #expect(!later.hasPreview && later.awaitsPreparation && !later.mainSearchIsSetAside)
        let (a, heardNow) = decode(now, x, preview: true)
        later.prepareForSpeech()
        #expect(later.hasPreview && later.mainSearchIsSetAside && !later.awaitsPreparation)
        let (b, heardLater) = decode(later, x, preview: true)
        #expect(!later.mainSearchIsSetAside && !now.mainSearchIsSetAside)
        #expect(heardLater == heardNow && heardNow != nil)
        #expect(b == a, "\(b.text) vs \(a.text)")
    }

    /// A decoder prepared while its stream had no speech (its main search set aside for the
    /// preview's) and then started over for another stream previews and decodes that stream
    /// as a fresh one: starting over neither needs the main search nor builds it.
    @Test(.flite) func startedOverWithItsSearchSetAsideItDecodesAsFresh() throws {
        let x = try #require(try Self.saying())
        let fresh = try decoderPreparedLater(), kept = try decoderPreparedLater()
        kept.prepareForSpeech()
        kept.startOver()
        #expect(kept.mainSearchIsSetAside && kept.hasPreview)
        let (a, heardFresh) = decode(fresh, x, preview: true)
        let (b, heardKept) = decode(kept, x, preview: true)
        #expect(heardKept == heardFresh && heardFresh != nil)
        #expect(b == a, "\(b.text) vs \(a.text)")
    }

    /// A session's first utterance, through the utterance decoder: its first partial result
    /// comes from the preview, before the full search has decoded anything; later
    /// utterances have none (the preview search is freed during the first); the finals are
    /// those of a decoder without the preview.
    @Test(.flite) func aSessionsFirstPartialComesFromThePreview() throws {
        let (x, onsets, ends) = try #require(try SpeculativeStartTests.speech())
        let helper = SpeculativeStartTests()
        let markers = helper.markers(1, onset: onsets[0], end: ends[0]) + helper.markers(2, onset: onsets[1], end: ends[1])
        var finals: [[RecognitionResult]] = []
        for preview in [false, true] {
            let d = try decoder(preview: preview)
            var events: [EngineEvent] = [], fromPreview: [Int: Bool] = [:]
            let settings = UtteranceDecoder.Settings(
                nodeId: "asr", segmentation: .endOfSpeech, finalPass: .live, partialFrames: 4000, alternatives: 0,
                cmnLookahead: 0.1, decodesInParts: true)
            let u = UtteranceDecoder(settings: settings, decoder: d, blockCapacity: 1024, emit: { e, _ in
                if case .partial(_, let n, _) = e, fromPreview[n] == nil { fromPreview[n] = d.isPreviewing }
                events.append(e)
            }, isCancelled: { false })
            var previewHeld: [Bool] = []
            helper.feed(x, markers, to: u) { previewHeld.append(d.hasPreview) }
            #expect(fromPreview == (preview ? [1: true, 2: false] : [1: false, 2: false]), "preview \(preview)")
            // Its 17 MB are freed once the first utterance's held audio goes to the full
            // search, within the first utterance.
            let firstEnd = Int(ends[0] * 16000) / 1024
            #expect(preview ? previewHeld.first == true && previewHeld[firstEnd...].allSatisfy { !$0 }
                            : previewHeld.allSatisfy { !$0 }, "preview \(preview): \(previewHeld)")
            finals.append(events.compactMap { if case .final(_, let r) = $0 { r } else { nil } })
        }
        try #require(finals[0].count == 2)
        #expect(finals[1].map(\.text) == finals[0].map(\.text))
        #expect(finals[1].map { $0.words.map(\.word) } == finals[0].map { $0.words.map(\.word) })
    }
}
