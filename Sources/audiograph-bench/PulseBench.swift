import AudioGraph
import AudioGraphCore
import Foundation
import Synchronization

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
