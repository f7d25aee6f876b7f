import AudioGraph
import Foundation

// How another Swift tool embeds audiograph: build a graph in code, tap a bus, run a
// recognition session, print partial and final results.
//
//   swift run audiograph-example speech.wav        (any WAV: rate and channels are converted)

guard CommandLine.arguments.count == 2 else {
    print("usage: audiograph-example FILE.wav")
    exit(2)
}

var graph = GraphDescription(name: "example")
graph.addNode("src", type: "file-source", ["path": .string(CommandLine.arguments[1])])
graph.addNode("vad", type: "vad")
graph.addNode("eos", type: "end-of-speech", ["mode": "short"])
graph.addNode("asr", type: "recognizer", ["partials": 0.2])
graph.connect("src", to: "vad")       // the engine inserts the conversion to 16 kHz mono
graph.connect("vad", to: "eos")
graph.connect("eos", to: "asr")

do {
    let session = try RecognitionSession(graph: graph, options: .init(realtime: true))
    try session.installTap(onNode: "vad", bufferSize: 1600) { buffer in
        // Called on the engine's delivery thread, 0.1 s at a time.
        let peak = buffer.samples(0).reduce(Float(0)) { max($0, abs($1)) }
        if peak > 0.5 { print(String(format: "  (loud: %.2f at %.1f s)", peak, buffer.time)) }
    }
    try session.start()
    for await event in session.events {
        switch event {
        case .partial(_, let u, let text): print("[\(u)] … \(text)")
        case .final(_, let r): print("[\(r.utterance)] \(r.text)  (confidence \(String(format: "%.2f", r.confidence)))")
        case .end(let reason, let suggestion): print("ended: \(reason.rawValue)" + (suggestion.map { " — \($0)" } ?? ""))
        default: break
        }
    }
} catch {
    try? FileHandle.standardError.write(contentsOf: Data("audiograph-example: \(error)\n".utf8))
    exit(1)
}
