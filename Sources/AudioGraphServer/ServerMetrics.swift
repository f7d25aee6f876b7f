import AudioGraphCore
import Foundation
import Synchronization

/// The server's counters, read by `GET /metrics` in Prometheus's text exposition format.
/// Any thread; a lock per update (per message, never per sample).
public final class ServerMetrics: Sendable {
    /// The protocols a session comes in by.
    public enum Wire: String, Sendable, CaseIterable {
        case wyoming, vosk, audiograph
    }

    private struct Counts {
        var active: [Wire: Int] = [:]
        var total: [Wire: Int] = [:]
        var refused: [String: Int] = [:]  // "wire/reason"
        var errors: [Wire: Int] = [:]
        var audioSeconds: [Wire: Double] = [:]
        var busySeconds: [Wire: Double] = [:]  // wall time sessions took, for the real-time factor
        var connections: [Wire: Int] = [:]
    }

    private let counts = Mutex(Counts())
    private let started = monotonicSeconds()

    /// No sessions yet.
    public init() {}

    func opened(_ wire: Wire) { counts.withLock { $0.connections[wire, default: 0] += 1 } }
    func began(_ wire: Wire) { counts.withLock { $0.active[wire, default: 0] += 1; $0.total[wire, default: 0] += 1 } }
    func refused(_ wire: Wire, _ reason: String) { counts.withLock { $0.refused["\(wire.rawValue)/\(reason)", default: 0] += 1 } }
    func failed(_ wire: Wire) { counts.withLock { $0.errors[wire, default: 0] += 1 } }
    func ended(_ wire: Wire, audio: Double, wall: Double) {
        counts.withLock {
            $0.active[wire, default: 0] -= 1
            $0.audioSeconds[wire, default: 0] += audio
            $0.busySeconds[wire, default: 0] += wall
        }
    }

    /// The Prometheus text format (version 0.0.4); `spareDecoders`: loaded models kept now.
    public func exposition(ready: Bool, draining: Bool, spareDecoders: Int = 0) -> String {
        let c = counts.withLock { $0 }
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, Double)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for (labels, v) in samples { out += "\(name)\(labels) \(v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v))\n" }
        }
        func perWire(_ d: [Wire: Int]) -> [(String, Double)] { Wire.allCases.map { ("{protocol=\"\($0.rawValue)\"}", Double(d[$0] ?? 0)) } }
        func perWire(_ d: [Wire: Double]) -> [(String, Double)] { Wire.allCases.map { ("{protocol=\"\($0.rawValue)\"}", d[$0] ?? 0) } }
        metric("audiograph_ready", "gauge", "1 once the models are loaded and the server takes sessions", [("", ready && !draining ? 1 : 0)])
        metric("audiograph_draining", "gauge", "1 after SIGTERM: sessions in flight finish, new ones are refused", [("", draining ? 1 : 0)])
        metric("audiograph_sessions_active", "gauge", "sessions in flight", perWire(c.active))
        metric("audiograph_sessions_total", "counter", "sessions begun", perWire(c.total))
        metric("audiograph_connections_total", "counter", "connections accepted", perWire(c.connections))
        let refused = c.refused.sorted { $0.key < $1.key }.map { kv -> (String, Double) in
            let parts = kv.key.split(separator: "/", maxSplits: 1)
            return ("{protocol=\"\(parts[0])\",reason=\"\(parts[1])\"}", Double(kv.value))
        }
        metric("audiograph_sessions_refused_total", "counter", "sessions and connections refused, by reason (busy, key, draining, connections, ...)", refused)
        metric("audiograph_errors_total", "counter", "sessions that ended with an error", perWire(c.errors))
        metric("audiograph_audio_seconds_total", "counter", "seconds of audio received", perWire(c.audioSeconds))
        let rtf = Wire.allCases.map { w -> (String, Double) in
            let a = c.audioSeconds[w] ?? 0
            return ("{protocol=\"\(w.rawValue)\"}", a > 0 ? (c.busySeconds[w] ?? 0) / a : 0)
        }
        metric("audiograph_session_real_time_factor", "gauge", "wall seconds of sessions per second of their audio (paced clients: about 1)", rtf)
        metric("audiograph_spare_decoders", "gauge", "loaded models kept for the next sessions (at most --spare-decoders)",
               [("", Double(spareDecoders))])
        metric("audiograph_uptime_seconds", "gauge", "seconds since start", [("", (monotonicSeconds() - started).rounded())])
        return out
    }
}
