import AudioGraph
import AudioGraphCore
import AudioGraphSpeech
import Foundation
import Synchronization

/// `audiograph-bench confidence-features GRAPH FILE...`: runs GRAPH with each FILE as its
/// input and prints one JSON line per final result with each word's confidence-model inputs
/// (what `Tools/confidence fit` fits the model on).
func confidenceFeatures(_ graphPath: String, _ files: [String]) async throws {
    for file in files {
        var g = try GraphFile.load(graphPath)
        try GraphEdits.source(file, node: nil, in: &g, registry: .builtin)
        let engine = try AudioEngine(graph: g, registry: .builtin)
        let results = Mutex<[RecognitionResult]>([])
        engine.setEventHandler { event in
            if case .final(_, let r) = event { results.withLock { $0.append(r) } }
        }
        try engine.prepare()
        _ = try await engine.run()
        for r in results.withLock({ $0 }) {
            var words: [[String: Any]] = []
            for w in r.words {
                words.append(["word": w.word, "start": w.start, "end": w.end, "confidence": w.confidence,
                              "features": w.evidence?.features ?? []])
            }
            let line: [String: Any] = ["file": file, "utterance": r.utterance, "text": r.text,
                                       "names": ConfidenceModel.names, "words": words]
            let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        }
    }
}
