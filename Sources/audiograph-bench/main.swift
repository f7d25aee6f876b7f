import AudioGraph
import AudioGraphCore
import CAllocCounter
import Foundation
import Synchronization

// Benchmarks of the engine itself (the peers' side-by-side runs are in Tools/bench).
//
//   audiograph-bench engine [FILE.wav] [--runs N]
//
// Runs file-source -> gain -> null-sink on FILE (default: a generated 10-minute 48 kHz
// stereo 16-bit file) and reports x real time, ns per frame and heap allocations per
// block on the render thread, counted by the malloc shim in CAllocCounter.

func generateLongFile(_ path: String, seconds: Double) async throws {
    var g = GraphDescription(name: "make-long")
    g.addNode("noise", type: "test-signal", ["signal": "pink", "level": -20, "rate": 48000, "channels": 2,
                                             "duration": .number(seconds)])
    g.addNode("out", type: "wav-sink", ["path": .string(path), "format": "s16"])
    g.connect("noise", to: "out")
    _ = try await AudioEngine(graph: g, registry: .builtin).run()
}

final class Counter: Sendable {
    let allocations = Atomic<Int>(0)
}

func benchEngine(_ args: [String]) async throws {
    var runs = 5
    var file: String?
    var i = 0
    while i < args.count {
        if args[i] == "--runs", i + 1 < args.count { runs = Int(args[i + 1]) ?? 5; i += 2; continue }
        file = args[i]
        i += 1
    }
    let path = file ?? "/tmp/audiograph-bench-long-48k-stereo.wav"
    if file == nil && !FileManager.default.fileExists(atPath: path) {
        FileHandle.standardError.write(Data("generating \(path) (600 s, 48 kHz stereo s16)...\n".utf8))
        try await generateLongFile(path, seconds: 600)
    }
    var g = GraphDescription(name: "bench-engine")
    g.addNode("src", type: "file-source", ["path": .string(path)])
    g.addNode("gain", type: "gain", ["db": -6])
    g.addNode("out", type: "null-sink")
    g.connect("src", to: "gain")
    g.connect("gain", to: "out")

    var walls: [Double] = []
    var frames: Double = 0, seconds: Double = 0, allocs = 0, blocks = 0
    for _ in 0..<runs {
        let counter = Counter()
        var options = AudioEngine.Options()
        options.renderWillStart = { ag_alloc_counter_begin() }
        options.renderDidEnd = { counter.allocations.store(Int(ag_alloc_counter_end()), ordering: .relaxed) }
        let engine = try AudioEngine(graph: g, registry: .builtin, options: options)
        let t0 = Date()
        try engine.prepare()
        let reason = try await engine.run()
        walls.append(Date().timeIntervalSince(t0))
        guard reason == .endOfInput else { throw EngineError(.io, "run ended with \(reason)") }
        seconds = engine.position
        frames = seconds * 48000
        allocs = counter.allocations.load(ordering: .relaxed)
        blocks = engine.blocksRendered
    }
    walls.sort()
    let median = walls[walls.count / 2]
    print("## audiograph engine: file-source -> gain -> null-sink")
    print("")
    print("| input | runs | median s | x real time | ns / frame | render-thread allocations | per block |")
    print("|---|---|---|---|---|---|---|")
    print(String(format: "| %@ (%.0f s) | %d | %.3f | %.0f | %.2f | %d in %d blocks | %.3f |",
                 (path as NSString).lastPathComponent, seconds, runs, median, seconds / median,
                 1e9 * median / max(frames, 1), allocs, blocks, Double(allocs) / Double(max(blocks, 1))))
    if allocs > 0 { exit(3) }
}

let args = Array(CommandLine.arguments.dropFirst())
do {
    switch args.first {
    case "engine": try await benchEngine(Array(args.dropFirst()))
    default:
        print("USAGE: audiograph-bench engine [FILE.wav] [--runs N]")
        exit(args.isEmpty ? 0 : 2)
    }
} catch {
    FileHandle.standardError.write(Data("audiograph-bench: \(error)\n".utf8))
    exit(1)
}
