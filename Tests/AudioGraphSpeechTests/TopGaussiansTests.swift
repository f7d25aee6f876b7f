@testable import AudioGraphCore
@testable import AudioGraphSpeech
import AudioGraphTestSupport
import CPocketSphinx
import Foundation
import Testing

/// `top-gaussians` (PocketSphinx `-topn`): fewer Gaussians score each state, for less CPU.
/// The real decoder and model.
@Suite(.enabled(if: SpeechModel.isDefaultInstalled, "Debian's pocketsphinx-en-us is not installed"))
struct TopGaussiansTests {
    func decoded(_ text: String, gaussians: Int) throws -> (topn: Int, text: String) {
        let d = try PocketSphinxDecoder(
            hmm: SpeechModel.defaultHMM, dict: SpeechModel.defaultDict, search: .languageModel(SpeechModel.defaultLM),
            limits: .init(hmms: 4000, wordExits: 10, gaussians: gaussians), dropsSilence: true)
        let x = try #require(try Flite.samples16(text))
        d.startUtterance()
        x.withUnsafeBufferPointer { d.process($0.baseAddress!, count: $0.count, wholeUtterance: true) }
        d.endUtterance()
        return (Int(cmd_ln_int_r(d.config, "-topn")), d.result(utterance: 1, start: 0, end: 1, alternatives: 0).text)
    }

    @Test(.flite) func theDecoderScoresWithTheGaussiansItWasGiven() throws {
        let two = try decoded("go forward ten meters", gaussians: 2)
        #expect(two.topn == 2)
        #expect(two.text.contains("forward"), "\(two.text)")
        #expect(try decoded("go forward ten meters", gaussians: 4).topn == 4)
    }

    /// The node's parameter is what its decoders (the full search and the first words'
    /// preview) are made with, and a decoder kept for reuse is not handed to settings with another.
    @Test func theParameterReachesTheDecodersSettings() throws {
        func settings(_ values: [String: ParameterValue]) throws -> RecognizerSettings {
            try RecognizerSettings(ResolvedParameters(
                nodeId: "asr", values: Recognizer.descriptor.filledWithDefaults(values.merging(["final": .string("live")]) { a, _ in a })))
        }
        let two = try settings(["top-gaussians": .number(2)]), four = try settings([:])
        #expect(two.limits.gaussians == 2 && two.previewLimits?.gaussians == 2)
        #expect(four.limits.gaussians == 4)
        #expect(two.decoderKey != nil && two.decoderKey != four.decoderKey)
    }
}
