@testable import AudioGraphCore
@testable import AudioGraphSpeech
import AudioGraphTestSupport
import Foundation
import Testing

/// A decoder kept for reuse: started over, it decodes as a freshly loaded one; the keeper
/// hands it only to the same model and settings. The real decoder and model.
@Suite(.enabled(if: SpeechModel.isDefaultInstalled, "Debian's pocketsphinx-en-us is not installed"), .serialized)
struct LoadedDecodersTests {
    func loaded() throws -> PocketSphinxDecoder {
        let d = try PocketSphinxDecoder(
            hmm: SpeechModel.defaultHMM, dict: SpeechModel.defaultDict, search: .languageModel(SpeechModel.defaultLM),
            limits: .init(hmms: 4000, wordExits: 10), dropsSilence: true)
        d.warmUp()
        return d
    }

    func samples(_ text: String) throws -> [Int16] { try #require(try Flite.samples16(text)) }

    /// Two utterances live (the running mean moves), then a whole one, as the recognizer does.
    func decode(_ d: PocketSphinxDecoder, _ x: [Int16]) -> RecognitionResult {
        for _ in 0..<2 {
            d.startUtterance()
            x.withUnsafeBufferPointer { d.process($0.baseAddress!, count: $0.count) }
            d.endUtterance()
        }
        d.startCepstralMean()
        x.withUnsafeBufferPointer { d.measureCepstralMean($0.baseAddress!, count: $0.count) }
        d.applyCepstralMean()
        d.startUtterance()
        x.withUnsafeBufferPointer { d.process($0.baseAddress!, count: $0.count, wholeUtterance: true) }
        d.endUtterance()
        return d.result(utterance: 1, start: 0, end: Double(x.count) / 16000, alternatives: 3)
    }

    @Test(.flite) func startedOverItDecodesAsFreshlyLoaded() throws {
        let x = try samples("go forward ten meters"), other = try samples("find japanese restaurants nearby and call a taxi")
        let fresh = decode(try loaded(), x)
        let reused = try loaded()
        _ = decode(reused, other)
        reused.startOver()
        let again = decode(reused, x)
        #expect(!fresh.text.isEmpty)
        #expect(again == fresh, "\(again.text) vs \(fresh.text)")
    }

    /// A keeper of its own: the shared one is switched on and off by other suites running
    /// at the same time.
    @Test(.flite) func keptOnlyForTheSameModelAndSettingsAndOnlyWhileKeeping() throws {
        let keeper = LoadedDecoders()
        keeper.keeping = true
        let key = LoadedDecoders.key(["a"], files: [SpeechModel.defaultDict])
        keeper.give(.init(decoder: try loaded(), automaton: nil, warnings: ["w"]), key: key)
        #expect(keeper.take(LoadedDecoders.key(["b"], files: [SpeechModel.defaultDict])) == nil)
        #expect(keeper.take(key)?.warnings == ["w"])
        #expect(keeper.take(key) == nil, "taken once")
        keeper.give(.init(decoder: try loaded(), automaton: nil, warnings: []), key: key)
        #expect(keeper.idleCount == 1)
        keeper.keeping = false
        #expect(keeper.idleCount == 0 && keeper.take(key) == nil, "not keeping: all freed")
    }

    /// At most `limit` idle, over all keys: past it the least recently given back is freed
    /// (they stayed as many as were ever in use at once, one more for each new grammar).
    @Test(.flite) func theLeastRecentlyGivenBackGoesPastTheLimit() throws {
        let keeper = LoadedDecoders()
        keeper.keeping = true
        keeper.limit = 2
        let keys = ["a", "b", "c"].map { LoadedDecoders.key([$0], files: [SpeechModel.defaultDict]) }
        for key in keys { keeper.give(.init(decoder: try loaded(), automaton: nil, warnings: [key]), key: key) }
        #expect(keeper.idleCount == 2)
        #expect(keeper.take(keys[0]) == nil, "the oldest went")
        #expect(keeper.take(keys[2])?.warnings == [keys[2]])
        keeper.limit = 0
        #expect(keeper.idleCount == 0 && keeper.take(keys[1]) == nil, "a lower limit frees at once")
    }
}
