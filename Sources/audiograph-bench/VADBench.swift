import AudioGraph
import AudioGraphCore
import Foundation

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
