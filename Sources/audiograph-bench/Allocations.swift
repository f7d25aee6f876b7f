import AudioGraph
import AudioGraphCore
import CAllocCounter
import Foundation
import Synchronization

/// `audiograph-bench allocations`: heap allocations on the render thread, counted by the
/// malloc shim in CAllocCounter, for graphs that cover the render path: sources, gain, the
/// speech front end (resampler, mixer, vad, end-of-speech), a level meter's events, taps, a
/// wav-sink, a file-source into a recognizer, an echo canceller, and a speech-synth.
/// One JSON line per graph: {"graph", "blocks", "allocations"}. The render path must not
/// allocate; RenderAllocationTests holds each graph to its pinned count. Release builds only
/// (a debug build allocates in code the optimiser removes).
func benchAllocations() async throws {
    func graph(_ name: String, _ build: (inout GraphDescription) -> Void) -> GraphDescription {
        var g = GraphDescription(name: name)
        build(&g)
        return g
    }
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ag-alloc-\(getpid())")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let written = scratch.appendingPathComponent("written.wav").path
    let graphs: [(GraphDescription, tap: String?)] = [
        (graph("gain") { g in
            g.addNode("src", type: "test-signal", ["signal": "pink", "rate": 48000, "channels": 2, "duration": 60])
            g.addNode("gain", type: "gain", ["db": -6])
            g.addNode("out", type: "null-sink")
            g.connect("src", to: "gain"); g.connect("gain", to: "out")
        }, nil),
        (graph("gain-with-tap") { g in
            g.addNode("src", type: "test-signal", ["signal": "pink", "rate": 48000, "channels": 2, "duration": 60])
            g.addNode("gain", type: "gain", ["db": -6])
            g.addNode("out", type: "null-sink")
            g.connect("src", to: "gain"); g.connect("gain", to: "out")
        }, "gain"),
        (graph("speech-front-end-with-tap") { g in
            g.addNode("src", type: "test-signal", ["signal": "pink", "rate": 48000, "channels": 2, "duration": 60])
            g.addNode("rs", type: "resampler", ["rate": 16000])
            g.addNode("mono", type: "mixer", ["channels": 1])
            g.addNode("meter", type: "level-meter", ["interval": 0.05])
            g.addNode("vad", type: "vad", ["probabilities": true])
            g.addNode("eos", type: "end-of-speech", ["no-speech-timeout": 0])
            g.addNode("out", type: "null-sink")
            g.connect("src", to: "rs"); g.connect("rs", to: "mono"); g.connect("mono", to: "meter")
            g.connect("meter", to: "vad"); g.connect("vad", to: "eos"); g.connect("eos", to: "out")
        }, "vad"),
        // The file writer's hand-off (its thread writes; the render thread only queues).
        (graph("wav-sink") { g in
            g.addNode("src", type: "test-signal", ["signal": "pink", "rate": 16000, "channels": 1, "duration": 60])
            g.addNode("out", type: "wav-sink", ["path": .string(written)])
            g.connect("src", to: "out")
        }, nil),
        // The file just written, read back (file-source), through the recognizer's front end
        // into its decoding queue (the decoder runs on its own thread).
        (graph("file-source-recognizer") { g in
            g.addNode("src", type: "file-source", ["path": .string(written)])
            g.addNode("vad", type: "vad")
            g.addNode("eos", type: "end-of-speech", ["no-speech-timeout": 0])
            g.addNode("asr", type: "recognizer")
            g.connect("src", to: "vad"); g.connect("vad", to: "eos"); g.connect("eos", to: "asr")
        }, nil),
        // The echo canceller on an echo it holds (the file just written, and the same file
        // 0.1 s on as what plays: the microphone hears it 0.1 s late, 6 dB down): its filter,
        // preprocessor, delay estimator, drift line and coherence stage all at work.
        (graph("echo-canceller") { g in
            g.addNode("mic", type: "file-source", ["path": .string(written)])
            g.addNode("room", type: "gain", ["db": -6])
            g.addNode("plays", type: "file-source", ["path": .string(written), "start": 0.1])
            g.addNode("aec", type: "echo-canceller")
            g.addNode("out", type: "null-sink")
            g.connect("mic", to: "room"); g.connect("room", to: "aec:0"); g.connect("plays", to: "aec:1"); g.connect("aec", to: "out")
        }, nil),
        // Speech from flite (synthesised on the worker; the render thread copies samples).
        (graph("speech-synth") { g in
            g.addNode("tts", type: "speech-synth", ["text": "go forward ten meters and then find japanese restaurants nearby"])
            g.addNode("out", type: "null-sink")
            g.connect("tts", to: "out")
        }, nil),
    ]
    // The control: an allocation the shim must see, or a count of 0 would prove nothing.
    ag_alloc_counter_begin()
    let control = [Int](repeating: 7, count: Int.random(in: 100...200))
    let controlCount = ag_alloc_counter_end()
    print("{\"graph\":\"control\",\"blocks\":\(control.count / 100),\"allocations\":\(controlCount)}")
    for (g, tap) in graphs {
        let counted = Atomic<Int>(0)
        var options = AudioEngine.Options()
        options.renderWillStart = { ag_alloc_counter_begin() }
        options.renderDidEnd = { counted.store(Int(ag_alloc_counter_end()), ordering: .relaxed) }
        let engine = try AudioEngine(graph: g, registry: .builtin, options: options)
        try engine.prepare()
        let tapped = Atomic<Int>(0)
        if let tap { _ = try engine.installTap(onNode: tap, bufferSize: 4096) { b in tapped.add(b.frameLength, ordering: .relaxed) } }
        let reason = try await engine.run()
        guard reason == .endOfInput else { throw EngineError(.io, "\(g.name): run ended with \(reason)") }
        if tap != nil && tapped.load(ordering: .relaxed) == 0 { throw EngineError(.io, "\(g.name): the tap saw nothing") }
        print("{\"graph\":\"\(g.name)\",\"blocks\":\(engine.blocksRendered),\"allocations\":\(counted.load(ordering: .relaxed))}")
    }
}
