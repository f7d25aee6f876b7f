import AudioGraphTestSupport
import AudioGraph
import AudioGraphCore
import AudioGraphDSP
import AudioGraphSpeech
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
        try? FileHandle.standardError.write(contentsOf: Data("generating \(path) (600 s, 48 kHz stereo s16)...\n".utf8))
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
    // The speech front end on the same file: conversion, VAD, end-of-speech.
    var speech = GraphDescription(name: "bench-speech-front-end")
    speech.addNode("src", type: "file-source", ["path": .string(path)])
    speech.addNode("rs", type: "resampler", ["rate": 16000])
    speech.addNode("mono", type: "mixer", ["channels": 1])
    speech.addNode("vad", type: "vad")
    speech.addNode("eos", type: "end-of-speech", ["no-speech-timeout": 0])
    speech.addNode("out", type: "null-sink")
    speech.connect("src", to: "rs"); speech.connect("rs", to: "mono"); speech.connect("mono", to: "vad")
    speech.connect("vad", to: "eos"); speech.connect("eos", to: "out")
    let counter = Counter()
    var options = AudioEngine.Options()
    options.renderWillStart = { ag_alloc_counter_begin() }
    options.renderDidEnd = { counter.allocations.store(Int(ag_alloc_counter_end()), ordering: .relaxed) }
    let engine = try AudioEngine(graph: speech, registry: .builtin, options: options)
    try engine.prepare()
    let t0 = Date()
    _ = try await engine.run()
    let wall = Date().timeIntervalSince(t0)
    let speechAllocs = counter.allocations.load(ordering: .relaxed)
    print(String(format: "| speech front end (resampler, mixer, vad, end-of-speech) | 1 | %.3f | %.0f | %.2f | %d in %d blocks | %.3f |",
                 wall, engine.position / wall, 1e9 * wall / max(engine.position * 48000, 1), speechAllocs, engine.blocksRendered,
                 Double(speechAllocs) / Double(max(engine.blocksRendered, 1))))
    if allocs > 0 || speechAllocs > 0 { exit(3) }
}

/// In-memory throughput of the resampler per ratio and preset: test-signal (white noise,
/// mono, 60 s) -> resampler -> null-sink, minus nothing (generation is included).
/// Every ratio and preset, or only `only` = [FROM, TO, QUALITY] (for profiling).
func benchResample(only: [String] = []) async throws {
    print("## audiograph resampler (in memory like soxr.resample: 60 s of mono white noise in an array -> resampler -> null-sink through the engine, median of 5)")
    print("")
    print("| ratio | quality | taps | Msamples/s in | x real time |")
    print("|---|---|---|---|---|")
    let pairs = only.count == 3 ? [(Int(only[0]) ?? 48000, Int(only[1]) ?? 16000)]
        : [(48000, 16000), (44100, 16000), (8000, 16000), (16000, 48000), (44100, 48000)]
    for (from, to) in pairs {
        for q in only.count == 3 ? [only[2]] : ["low", "medium", "high", "very-high"] {
            var state: UInt32 = 1
            let noise = (0..<60 * from).map { _ -> Float in
                state = state &* 1_664_525 &+ 1_013_904_223
                return Float(Int32(bitPattern: state)) / Float(Int32.max) * 0.25
            }
            var g = GraphDescription(name: "bench-resample")
            g.addNode("src", type: "array-source")
            g.addNode("rs", type: "resampler", ["rate": .number(Double(to)), "quality": .string(q)])
            g.addNode("out", type: "null-sink")
            g.connect("src", to: "rs")
            g.connect("rs", to: "out")
            var walls: [Double] = []
            for _ in 0..<5 {
                var registry = NodeRegistry.builtin
                let source = UncheckedSendable(ArraySource(rate: Double(from), channels: [noise]))
                registry.register(ArraySource.descriptor { source.value })
                let engine = try AudioEngine(graph: g, registry: registry)
                try engine.prepare()
                let t0 = Date()
                _ = try await engine.run()
                walls.append(Date().timeIntervalSince(t0))
            }
            let median = walls.sorted()[2]
            let taps = PolyphaseTaps.count(from: from, to: to, quality: q)
            print(String(format: "| %d -> %d | %@ | %d | %.1f | %.0f |", from, to, q, taps, 60 * Double(from) / median / 1e6,
                         60 / median))
        }
    }
}

/// User + system CPU seconds this process has used so far.
func cpuSeconds() -> Double {
    var u = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)
    return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6 + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
}

/// Start-up parts of the recognizer: the model-file checks (reading the files, and then
/// from their record of passing), then a whole session of the dictation graph over a second
/// of silence, which ends once the model has loaded (median of `runs`).
func benchModel(runs: Int = 5) throws {
    func median(_ f: () throws -> Void) rethrows -> Double {
        var t: [Double] = []
        for _ in 0..<runs {
            let start = Date()
            try f()
            t.append(Date().timeIntervalSince(start) * 1000)
        }
        return t.sorted()[runs / 2]
    }
    // The checks read the files when no record of their passing can be kept (a cache folder
    // that cannot be written), and only the record once one is kept.
    let cache = ProcessInfo.processInfo.environment["AUDIOGRAPH_CACHE"]
    let records = FileManager.default.temporaryDirectory.appendingPathComponent("bench-model-cache-\(getpid())")
    defer { try? FileManager.default.removeItem(at: records) }
    setenv("AUDIOGRAPH_CACHE", "/proc/no/such/folder", 1)
    let check = try median { try SpeechModel.check(hmm: SpeechModel.defaultHMM, dict: SpeechModel.defaultDict) }
    setenv("AUDIOGRAPH_CACHE", records.path, 1)
    try SpeechModel.check(hmm: SpeechModel.defaultHMM, dict: SpeechModel.defaultDict)
    let recorded = try median { try SpeechModel.check(hmm: SpeechModel.defaultHMM, dict: SpeechModel.defaultDict) }
    if let cache { setenv("AUDIOGRAPH_CACHE", cache, 1) } else { unsetenv("AUDIOGRAPH_CACHE") }
    let silence = FileManager.default.temporaryDirectory.appendingPathComponent("bench-silence.wav")
    var wav = Data()
    func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { wav.append(contentsOf: $0) } }
    func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { wav.append(contentsOf: $0) } }
    wav.append(contentsOf: Array("RIFF".utf8)); u32(36 + 16000); wav.append(contentsOf: Array("WAVEfmt ".utf8))
    u32(16); u16(1); u16(1); u32(16000); u32(32000); u16(2); u16(16)
    wav.append(contentsOf: Array("data".utf8)); u32(16000); wav.append(Data(count: 16000))
    try wav.write(to: silence)
    var g = GraphDescription(name: "model")
    g.addNode("src", type: "file-source", ["path": .string(silence.path)])
    g.addNode("vad", type: "vad")
    g.addNode("eos", type: "end-of-speech", ["mode": "long", "no-speech-timeout": 0])
    g.addNode("asr", type: "recognizer", ["partials": 0.25, "alternatives": 3, "final": "live"])
    g.connect("src", to: "vad")
    g.connect("vad", to: "eos")
    g.connect("eos", to: "asr")
    // The session is listening before PocketSphinx has loaded; its end waits for the load.
    let load = try median {
        let session = try RecognitionSession(graph: g)
        try session.start()
        while session.engine.waitUntilEnded(timeout: 1) == nil {}
    }
    print("| recognizer start-up (median of \(runs)) | ms |\n|---|---|")
    print(String(format: "| model-file checks (acoustic model, 134k-word dictionary), first time | %.1f |", check))
    print(String(format: "| the same files again (their record of passing) | %.2f |", recorded))
    print(String(format: "| the dictation graph over 1 s of silence, opened to its end (checks, PocketSphinx's load) | %.0f |", load))
}

let args = Array(CommandLine.arguments.dropFirst())
do {
    switch args.first {
    case "engine": try await benchEngine(Array(args.dropFirst()))
    case "resample": try await benchResample(only: Array(args.dropFirst()))
    case "model": try benchModel()
    case "pulse":
        let fragments = args.count > 2 ? args[2].split(separator: ",").compactMap { Double($0).map { $0 / 1000 } } : [0.01, 0.02]
        try await benchPulse(seconds: args.count > 1 ? Double(args[1]) ?? 20 : 20, fragments: fragments)
    case "allocations": try await benchAllocations()
    case "confidence-features":
        guard args.count >= 3 else { print("USAGE: audiograph-bench confidence-features GRAPH FILE..."); exit(2) }
        try await confidenceFeatures(args[1], Array(args.dropFirst(2)))
    case "vad-features": try vadFeatures(Array(args.dropFirst()))
    case "voicing": benchVoicing()
    case "vad":
        guard args.count == 2 else { print("USAGE: audiograph-bench vad FOLDER"); exit(2) }
        try await benchVAD(args[1])
    default:
        print("USAGE: audiograph-bench engine [FILE.wav] [--runs N] | resample [FROM TO QUALITY] | model | vad FOLDER | voicing | pulse [SECONDS] [FRAGMENT_MS,...] | allocations | confidence-features GRAPH FILE... | vad-features RATE IN.f32 OUT.f32...")
        exit(args.isEmpty ? 0 : 2)
    }
} catch {
    try? FileHandle.standardError.write(contentsOf: Data("audiograph-bench: \(error)\n".utf8))
    exit(1)
}
