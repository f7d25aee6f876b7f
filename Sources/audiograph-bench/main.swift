import AudioGraph
import AudioGraphCore
import AudioGraphDSP
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

/// In-memory throughput of the resampler per ratio and preset: test-signal (white noise,
/// mono, 60 s) -> resampler -> null-sink, minus nothing (generation is included).
func benchResample() async throws {
    print("## audiograph resampler (in memory, mono white noise, 60 s per run, median of 3)")
    print("")
    print("| ratio | quality | taps | Msamples/s in | x real time |")
    print("|---|---|---|---|---|")
    for (from, to) in [(48000, 16000), (44100, 16000), (8000, 16000), (16000, 48000), (44100, 48000)] {
        for q in ["low", "medium", "high", "very-high"] {
            var g = GraphDescription(name: "bench-resample")
            g.addNode("src", type: "test-signal", ["signal": "white", "rate": .number(Double(from)), "duration": 60])
            g.addNode("rs", type: "resampler", ["rate": .number(Double(to)), "quality": .string(q)])
            g.addNode("out", type: "null-sink")
            g.connect("src", to: "rs")
            g.connect("rs", to: "out")
            var walls: [Double] = []
            for _ in 0..<3 {
                let engine = try AudioEngine(graph: g, registry: .builtin)
                try engine.prepare()
                let t0 = Date()
                _ = try await engine.run()
                walls.append(Date().timeIntervalSince(t0))
            }
            let median = walls.sorted()[1]
            let taps = PolyphaseTaps.count(from: from, to: to, quality: q)
            print(String(format: "| %d -> %d | %@ | %d | %.1f | %.0f |", from, to, q, taps, 60 * Double(from) / median / 1e6,
                         60 / median))
        }
    }
}

/// The VAD on every WAV of a folder: speech regions found, share of speech, CPU per second
/// of audio (the render thread's time, start-up excluded). Labels are not needed.
func benchVAD(_ folder: String) async throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".wav") }.sorted()
    print("## audiograph vad on \(folder)")
    print("")
    print("| file | seconds | regions | speech % | first onset s | CPU ms / s of audio |")
    print("|---|---|---|---|---|---|")
    var totalAudio = 0.0, totalCPU = 0.0
    for f in files {
        var g = GraphDescription(name: "bench-vad")
        g.addNode("src", type: "file-source", ["path": .string(folder + "/" + f)])
        g.addNode("rs", type: "resampler", ["rate": 16000])
        g.addNode("vad", type: "vad")
        g.addNode("out", type: "null-sink")
        g.connect("src", to: "rs")
        g.connect("rs", to: "vad")
        g.connect("vad", to: "out")
        let engine: AudioEngine
        do {
            engine = try AudioEngine(graph: g, registry: .builtin)
            try engine.prepare()
        } catch {
            print("| \(f) | unreadable: \(error) | | | | |")
            continue
        }
        let regions = Mutex<[(Double, Double)]>([])
        engine.setEventHandler { e in
            switch e {
            case .speechStart(_, let t, _): regions.withLock { $0.append((t, t)) }
            case .speechEnd(_, let t, _): regions.withLock { r in if !r.isEmpty { r[r.count - 1].1 = t } }
            default: break
            }
        }
        var start = rusage(), end = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &start)
        _ = try await engine.run()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &end)
        let cpu = Double(end.ru_utime.tv_sec - start.ru_utime.tv_sec) + Double(end.ru_utime.tv_usec - start.ru_utime.tv_usec) / 1e6
            + Double(end.ru_stime.tv_sec - start.ru_stime.tv_sec) + Double(end.ru_stime.tv_usec - start.ru_stime.tv_usec) / 1e6
        let seconds = engine.position
        let r = regions.withLock { $0 }
        let speech = r.reduce(0.0) { $0 + max(0, $1.1 - $1.0) }
        totalAudio += seconds
        totalCPU += cpu
        print(String(format: "| %@ | %.1f | %d | %.0f | %@ | %.2f |", f, seconds, r.count, 100 * speech / max(seconds, 1e-9),
                     r.first.map { String(format: "%.2f", $0.0) } ?? "-", 1000 * cpu / max(seconds, 1e-9)))
    }
    print("")
    print(String(format: "All: %.0f s of audio, %.3f ms CPU per second of audio (whole graph, incl. file reading and resampling)",
                 totalAudio, 1000 * totalCPU / max(totalAudio, 1e-9)))
}

let args = Array(CommandLine.arguments.dropFirst())
do {
    switch args.first {
    case "engine": try await benchEngine(Array(args.dropFirst()))
    case "resample": try await benchResample()
    case "vad":
        guard args.count == 2 else { print("USAGE: audiograph-bench vad FOLDER"); exit(2) }
        try await benchVAD(args[1])
    default:
        print("USAGE: audiograph-bench engine [FILE.wav] [--runs N] | resample | vad FOLDER")
        exit(args.isEmpty ? 0 : 2)
    }
} catch {
    FileHandle.standardError.write(Data("audiograph-bench: \(error)\n".utf8))
    exit(1)
}
