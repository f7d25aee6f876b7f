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
    /// The command graph's own grammar ("go forward ten meters", ...).
    static let grammar = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Graphs/command.gram").path

    func load() throws -> PocketSphinxDecoder {
        try PocketSphinxDecoder(hmm: SpeechModel.defaultHMM, dict: SpeechModel.defaultDict, search: .grammar(Self.grammar),
                                limits: .init(hmms: 4000, wordExits: 10), dropsSilence: true)
    }

    @Test func loadingADecoderOpensNoProcessWideLogFile() throws {
        _ = try load()
        // The capture turns the log file off; a `-logfn` load would have opened one.
        #expect(err_get_logfp() == nil)
    }

    @Test(.flite) func decodersLoadedAtOnceOnFourThreadsAllDecode() throws {
        let x = try #require(try Flite.samples16("go forward ten meters"))
        let texts = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            guard let d = try? load() else { return }
            d.startUtterance()
            x.withUnsafeBufferPointer { d.process($0.baseAddress!, count: $0.count, wholeUtterance: true) }
            d.endUtterance()
            let text = d.result(utterance: 1, start: 0, end: Double(x.count) / 16000, alternatives: 1).text
            texts.withLock { $0.append(text) }
        }
        #expect(texts.withLock { $0 } == Array(repeating: "go forward ten meters", count: 4))
    }
}
