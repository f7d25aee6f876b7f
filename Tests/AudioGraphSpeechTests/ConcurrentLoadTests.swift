@testable import AudioGraphCore
@testable import AudioGraphSpeech
import AudioGraphTestSupport
import CPocketSphinx
import Foundation
import Testing

/// Decoders loaded at once on several threads, as a server's sessions load them: PocketSphinx's
/// process-wide log file is left alone (its `err_set_logfile` closes the file before it with
/// no lock: two loads at once closed one FILE twice and corrupted the heap), and every decoder
/// decodes. The real decoder and model.
@Suite(.enabled(if: SpeechModel.isDefaultInstalled, "Debian's pocketsphinx-en-us is not installed"))
struct ConcurrentLoadTests {
    static let grammar = "#JSGF V1.0;\ngrammar g;\npublic <c> = go forward ten meters | turn left;\n"

    func load(_ gram: String) throws -> PocketSphinxDecoder {
        try PocketSphinxDecoder(hmm: SpeechModel.defaultHMM, dict: SpeechModel.defaultDict, search: .grammar(gram),
                                limits: .init(hmms: 4000, wordExits: 10), dropsSilence: true)
    }

    @Test func loadingADecoderOpensNoProcessWideLogFile() throws {
        let gram = try TemporaryGrammar(Self.grammar)
        _ = try load(gram.path)
        // The capture turns the log file off; a `-logfn` load would have opened one.
        #expect(err_get_logfp() == nil)
    }

    @Test(.flite) func decodersLoadedAtOnceOnFourThreadsAllDecode() throws {
        let gram = try TemporaryGrammar(Self.grammar)
        let x = try #require(try Flite.samples16("go forward ten meters"))
        let texts = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            guard let d = try? load(gram.path) else { return }
            d.startUtterance()
            x.withUnsafeBufferPointer { d.process($0.baseAddress!, count: $0.count, wholeUtterance: true) }
            d.endUtterance()
            let text = d.result(utterance: 1, start: 0, end: Double(x.count) / 16000, alternatives: 1).text
            texts.withLock { $0.append(text) }
        }
        #expect(texts.withLock { $0 } == Array(repeating: "go forward ten meters", count: 4))
    }
}

/// A JSGF grammar in a file of its own, removed with this value.
final class TemporaryGrammar: Sendable {
    let path: String
    init(_ text: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("ag-\(UUID().uuidString).gram").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}
