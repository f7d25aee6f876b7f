@testable import AudioGraphCore
@testable import AudioGraphSpeech
import Foundation
import Testing

/// The search over the n-gram model, built when speech first needs it: a model that reads
/// but cannot be searched loads, then reports why, naming the `lm` parameter, once the
/// search is wanted; the decoder then decodes nothing. The real decoder and model.
@Suite(.enabled(if: SpeechModel.isDefaultInstalled, "Debian's pocketsphinx-en-us is not installed"))
struct DeferredSearchTests {
    /// An ARPA model PocketSphinx reads but will not search: it has no sentence end, `</s>`.
    func modelWithoutSentenceEnd() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ag-no-end-\(UUID().uuidString).arpa").path
        try """
            \\data\\
            ngram 1=4
            ngram 2=2

            \\1-grams:
            -0.5 <s> -0.3
            -0.8 go -0.3
            -0.8 forward -0.3
            -0.9 ten -0.3

            \\2-grams:
            -0.2 <s> go
            -0.2 go forward

            \\end\\

            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func decoder(_ lm: String, searchLater: Bool) throws(EngineError) -> PocketSphinxDecoder {
        try PocketSphinxDecoder(hmm: SpeechModel.defaultHMM, dict: SpeechModel.defaultDict, search: .languageModel(lm),
                                limits: .init(hmms: 4000, wordExits: 10), dropsSilence: false,
                                preparedLater: true, searchLater: searchLater)
    }

    @Test func aSearchThatCannotBeBuiltFailsWhenSpeechNeedsIt() throws {
        let lm = try modelWithoutSentenceEnd()
        defer { try? FileManager.default.removeItem(atPath: lm) }
        let d = try decoder(lm, searchLater: true)
        #expect(d.searchFailure == nil, "the model reads: nothing fails before the search is wanted")
        d.prepareForSpeech()
        let failure = try #require(d.searchFailure)
        #expect(failure.parameter == "lm" && failure.message.contains("</s>"), "\(failure)")
        // It decodes nothing, and says nothing, rather than crash.
        let noise = [Int16](repeating: 100, count: 1600)
        d.startUtterance()
        noise.withUnsafeBufferPointer { d.process($0.baseAddress!, count: $0.count) }
        d.endUtterance()
        #expect(d.hypothesis() == "")
    }

    @Test func theSameModelFailsTheLoadWhenTheSearchIsNotDeferred() throws {
        let lm = try modelWithoutSentenceEnd()
        defer { try? FileManager.default.removeItem(atPath: lm) }
        #expect { _ = try decoder(lm, searchLater: false) } throws: { error in
            (error as? EngineError).map { $0.message.contains("</s>") } == true
        }
    }
}
