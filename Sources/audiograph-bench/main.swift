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
func benchResample() async throws {
    print("## audiograph resampler (in memory like soxr.resample: 60 s of mono white noise in an array -> resampler -> null-sink through the engine, median of 5)")
    print("")
    print("| ratio | quality | taps | Msamples/s in | x real time |")
    print("|---|---|---|---|---|")
    for (from, to) in [(48000, 16000), (44100, 16000), (8000, 16000), (16000, 48000), (44100, 48000)] {
        for q in ["low", "medium", "high", "very-high"] {
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

/// The VAD on every WAV of a folder: speech regions found, share of speech, CPU per second
/// of audio (the render thread's time, start-up excluded). Labels are not needed.
func benchVAD(_ folder: String) async throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".wav") }.sorted()
    print("## audiograph vad on \(folder)")
    print("")
    print("| file | seconds | regions | speech % | first onset s | CPU ms / s of audio |")
    print("|---|---|---|---|---|---|")
    var totalAudio = 0.0, totalCPU = 0.0, totalWithout = 0.0
    for f in files {
        func graph(vad: Bool) -> GraphDescription {
            var g = GraphDescription(name: "bench-vad")
            g.addNode("src", type: "file-source", ["path": .string(folder + "/" + f)])
            g.addNode("rs", type: "resampler", ["rate": 16000])
            g.addNode("out", type: "null-sink")
            g.connect("src", to: "rs")
            if vad {
                g.addNode("vad", type: "vad")
                g.connect("rs", to: "vad")
                g.connect("vad", to: "out")
            } else {
                g.connect("rs", to: "out")
            }
            return g
        }
        // The same graph without the vad: the difference is the vad's own cost.
        if let without = try? AudioEngine(graph: graph(vad: false), registry: .builtin), (try? without.prepare()) != nil {
            let c0 = cpuSeconds()
            _ = try? await without.run()
            totalWithout += cpuSeconds() - c0
        }
        let g = graph(vad: true)
        let engine: AudioEngine
        do {
            engine = try AudioEngine(graph: g, registry: .builtin)
            try engine.prepare()
        } catch {
            print("| \(f) | unreadable: \(error) | | | | |")
            continue
        }
        let regions = Locked<[(Double, Double)]>([])
        engine.setEventHandler { e in
            switch e {
            case .speechStart(_, let t, _): regions.withLock { $0.append((t, t)) }
            case .speechEnd(_, let t, _): regions.withLock { r in if !r.isEmpty { r[r.count - 1].1 = t } }
            default: break
            }
        }
        let c0 = cpuSeconds()
        _ = try await engine.run()
        let cpu = cpuSeconds() - c0
        let seconds = engine.position
        let r = regions.withLock { $0 }
        let speech = r.reduce(0.0) { $0 + max(0, $1.1 - $1.0) }
        totalAudio += seconds
        totalCPU += cpu
        print(String(format: "| %@ | %.1f | %d | %.0f | %@ | %.2f |", f, seconds, r.count, 100 * speech / max(seconds, 1e-9),
                     r.first.map { String(format: "%.2f", $0.0) } ?? "-", 1000 * cpu / max(seconds, 1e-9)))
    }
    print("")
    print(String(format: "All: %.0f s of audio, %.3f ms CPU per second of audio (whole graph, incl. file reading and resampling); "
                 + "the vad node alone (minus the same graph without it): %.3f ms",
                 totalAudio, 1000 * totalCPU / max(totalAudio, 1e-9), 1000 * (totalCPU - totalWithout) / max(totalAudio, 1e-9)))
}

/// Capture latency through a real PulseAudio server: clicks written into the test daemon's
/// pipe source (AG_PULSE_PIPE, 16 kHz mono s16) at known times, seen by a tap on the
/// pulse-source's output. Latency = tap callback time - write time: server delivery plus
/// engine queueing. Also CPU per second of capture and overruns.
func benchPulse(seconds: Double, fragments: [Double] = [0.01, 0.02]) async throws {
    guard let pipe = ProcessInfo.processInfo.environment["AG_PULSE_PIPE"] else {
        print("pulse: needs the test daemon (Tools/bench pulse starts one)")
        exit(2)
    }
    print("## audiograph pulse-source: capture-to-tap latency and cost (\(Int(seconds)) s per setting)")
    print("")
    print("| fragment | clicks | latency p50 ms | p90 ms | max ms | CPU ms / s, whole bench process (writer thread, 1 ms tap) | overruns |")
    print("|---|---|---|---|---|---|---|")
    for fragment in fragments {
        var g = GraphDescription(name: "bench-pulse")
        g.addNode("mic", type: "pulse-source", ["device": "agtest_pipe", "latency": .number(fragment)])
        g.addNode("out", type: "null-sink")
        g.connect("mic", to: "out")
        let engine = try AudioEngine(graph: g, registry: .builtin, options: .init(blockFrames: 160))
        try engine.prepare()
        let seen = Locked<[Double]>([])
        let overruns = Locked(0)
        engine.setEventHandler { e in if case .overrun(_, let n) = e { overruns.withLock { $0 += n } } }
        try engine.installTap(onNode: "mic", bufferSize: 16) { b in
            if b.samples(0).contains(where: { $0 > 0.5 }) {
                var ts = timespec()
                clock_gettime(CLOCK_MONOTONIC, &ts)
                let now = Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
                seen.withLock { $0.append(now) }
            }
        }
        let written = Locked<[Double]>([])
        let cpu0 = cpuSeconds()
        try engine.start()
        let writer = Thread {
            guard let h = FileHandle(forWritingAtPath: pipe) else { return }
            let chunk = 160  // 10 ms
            var silence = Data(count: chunk * 2)
            var click = Data(count: chunk * 2)
            click.withUnsafeMutableBytes { $0.storeBytes(of: Int16(30000).littleEndian, toByteOffset: 0, as: Int16.self) }
            var ts = timespec()
            clock_gettime(CLOCK_MONOTONIC, &ts)
            let t0 = Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
            let chunks = Int(seconds * 100)
            for k in 0..<chunks {
                let due = t0 + Double(k) * 0.01
                while true {
                    clock_gettime(CLOCK_MONOTONIC, &ts)
                    let now = Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
                    if now >= due { break }
                    usleep(UInt32(min(5000, (due - now) * 1e6)))
                }
                let isClick = k % 50 == 25
                if isClick {
                    clock_gettime(CLOCK_MONOTONIC, &ts)
                    let now = Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
                    written.withLock { $0.append(now) }
                }
                h.write(isClick ? click : silence)
            }
            silence.removeAll()
            try? h.close()
        }
        writer.start()
        try await Task.sleep(for: .seconds(seconds + 1))
        engine.stop()
        _ = await engine.ended()
        let cpu = cpuSeconds() - cpu0
        let w = written.withLock { $0 }, s = seen.withLock { $0 }
        // Pair each click with the first sighting after it.
        var lat: [Double] = []
        var j = 0
        for t in w {
            while j < s.count && s[j] < t { j += 1 }
            if j < s.count && s[j] - t < 1 { lat.append(1000 * (s[j] - t)); j += 1 }
        }
        lat.sort()
        func q(_ p: Double) -> Double { lat.isEmpty ? .nan : lat[min(lat.count - 1, Int(p * Double(lat.count)))] }
        print(String(format: "| %.0f ms | %d / %d | %.1f | %.1f | %.1f | %.2f | %d |", fragment * 1000, lat.count, w.count,
                     q(0.5), q(0.9), lat.last ?? .nan, 1000 * cpu / max(engine.position, 1e-9), overruns.withLock { $0 }))
    }
}

/// Start-up parts of the recognizer: the model-file checks, then the whole load as a
/// session over the dictation graph's recognizer settings (median of `runs`).
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
    let check = try median { try SpeechModel.check(hmm: SpeechModel.defaultHMM, dict: SpeechModel.defaultDict) }
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
    g.addNode("asr", type: "recognizer", ["final": "live"])
    g.connect("src", to: "asr")
    let load = try median { _ = try RecognitionSession(graph: g) }
    print("| recognizer start-up (median of \(runs)) | ms |\n|---|---|")
    print(String(format: "| model-file checks (acoustic model, 134k-word dictionary) | %.1f |", check))
    print(String(format: "| whole load (checks, PocketSphinx, preview search, warm-up) | %.0f |", load))
}

let args = Array(CommandLine.arguments.dropFirst())
do {
    switch args.first {
    case "engine": try await benchEngine(Array(args.dropFirst()))
    case "resample": try await benchResample()
    case "model": try benchModel()
    case "pulse":
        let fragments = args.count > 2 ? args[2].split(separator: ",").compactMap { Double($0).map { $0 / 1000 } } : [0.01, 0.02]
        try await benchPulse(seconds: args.count > 1 ? Double(args[1]) ?? 20 : 20, fragments: fragments)
    case "allocations": try await benchAllocations()
    case "confidence-features":
        guard args.count >= 3 else { print("USAGE: audiograph-bench confidence-features GRAPH FILE..."); exit(2) }
        try await confidenceFeatures(args[1], Array(args.dropFirst(2)))
    case "vad":
        guard args.count == 2 else { print("USAGE: audiograph-bench vad FOLDER"); exit(2) }
        try await benchVAD(args[1])
    default:
        print("USAGE: audiograph-bench engine [FILE.wav] [--runs N] | resample | model | vad FOLDER | pulse [SECONDS] [FRAGMENT_MS,...] | allocations | confidence-features GRAPH FILE...")
        exit(args.isEmpty ? 0 : 2)
    }
} catch {
    FileHandle.standardError.write(Data("audiograph-bench: \(error)\n".utf8))
    exit(1)
}
