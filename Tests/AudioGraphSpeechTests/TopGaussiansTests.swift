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
        let w = try WAVFile.monoSamples(path: try #require(Flite.speech(text)).path)
        let x = w.samples.map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) }
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
}
