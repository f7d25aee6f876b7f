@testable import AudioGraphCore
@testable import AudioGraphSpeech
import AudioGraphTestSupport
import CPocketSphinx
import Foundation
import Testing

/// `warp` (PocketSphinx `-warp_type inverse_linear -warp_params`): the front end's frequency
/// warp for a talker's vocal tract. The real decoder and model.
@Suite(.enabled(if: SpeechModel.isDefaultInstalled, "Debian's pocketsphinx-en-us is not installed"))
struct WarpTests {
    func decoded(_ x: [Int16], warp: Double) throws -> (type: String?, params: String?, text: String, score: Int32) {
        let d = try PocketSphinxDecoder(
            hmm: SpeechModel.defaultHMM, dict: SpeechModel.defaultDict, search: .languageModel(SpeechModel.defaultLM),
            limits: .init(hmms: 4000, wordExits: 10), warp: warp, dropsSilence: true)
        d.startUtterance()
        x.withUnsafeBufferPointer { d.process($0.baseAddress!, count: $0.count, wholeUtterance: true) }
        d.endUtterance()
        var score: Int32 = 0
        _ = ps_get_hyp(d.decoder, &score)
        return (cmd_ln_str_r(d.config, "-warp_type").map { String(cString: $0) },
                cmd_ln_str_r(d.config, "-warp_params").map { String(cString: $0) },
                d.result(utterance: 1, start: 0, end: 1, alternatives: 0).text, score)
    }

    /// The warped front end measures other features of the same audio (another path score),
    /// and a small warp still recognises clear speech.
    @Test(.flite) func theDecoderHearsThroughTheWarpItWasGiven() throws {
        let x = try #require(try Flite.samples16("go forward ten meters"))
        let plain = try decoded(x, warp: 1), warped = try decoded(x, warp: 0.94)
        #expect(plain.params == nil || plain.type != "inverse_linear", "no warp unless asked: \(plain)")
        #expect(warped.type == "inverse_linear" && warped.params.flatMap { Double($0) } == 0.94, "\(warped)")
        #expect(warped.score != plain.score)
        #expect(warped.text.contains("forward"), "\(warped.text)")
    }

    /// PocketSphinx keeps the warp's settings for the whole process and skips setting them
    /// when a load's text is the last warped load's: a plain decoder loaded in between turned
    /// the warp off, and the next decoder of that warp heard unwarped (FrontEndWarp.c).
    @Test(.flite) func aWarpLoadedAgainAfterAPlainDecoderStillWarps() throws {
        let x = try #require(try Flite.samples16("go forward ten meters"))
        let first = try decoded(x, warp: 0.94)
        let plain = try decoded(x, warp: 1)
        let again = try decoded(x, warp: 0.94)
        #expect(first.score != plain.score)
        #expect(again.score == first.score, "warped \(first.score), plain \(plain.score), warped again \(again.score)")
    }

    /// The node's parameter reaches its settings, and a decoder kept for reuse is not handed to
    /// settings with another warp.
    @Test func theParameterReachesTheDecodersSettings() throws {
        func settings(_ values: [String: ParameterValue]) throws -> RecognizerSettings {
            try RecognizerSettings(ResolvedParameters(
                nodeId: "asr", values: Recognizer.descriptor.filledWithDefaults(values)))
        }
        let warped = try settings(["warp": .number(1.06)]), plain = try settings([:])
        #expect(warped.warp == 1.06 && plain.warp == 1)
        #expect(warped.decoderKey != nil && warped.decoderKey != plain.decoderKey)
    }

    /// In assistant mode the wake word's own decoder hears with the recognizer's warp too.
    @Test func theWakeWordIsHeardWithTheSameWarp() throws {
        let main = try PocketSphinxDecoder(
            hmm: SpeechModel.defaultHMM, dict: SpeechModel.defaultDict, search: .keyphrase("hello computer", threshold: 1e-20),
            limits: .init(hmms: 4000, wordExits: 10), warp: 1.06, dropsSilence: false)
        let spotter = try WakeWordSpotter(phrase: "hello computer", threshold: 1e-20, hmm: SpeechModel.defaultHMM, dictionary: main)
        let params = cmd_ln_str_r(spotter.decoder.config, "-warp_params").map { String(cString: $0) }
        #expect(params.flatMap { Double($0) } == 1.06, "\(String(describing: params))")
    }
}
