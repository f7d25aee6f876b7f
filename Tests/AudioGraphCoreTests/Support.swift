import Foundation
import Synchronization

@testable import AudioGraphCore

/// Collects what a run reports, from the delivery thread.
final class Recorder: Sendable {
    private let events = Locked<[EngineEvent]>([])
    private let buffers = Locked<[(time: Int64, frames: Int, first: Float, last: Float)]>([])

    func record(_ e: EngineEvent) { events.withLock { $0.append(e) } }
    func record(_ b: AudioBuffer) {
        buffers.withLock { $0.append((b.sampleTime, b.frameLength, b.channel(0)[0], b.channel(0)[b.frameLength - 1])) }
    }

    var allEvents: [EngineEvent] { events.withLock { $0 } }
    var allBuffers: [(time: Int64, frames: Int, first: Float, last: Float)] { buffers.withLock { $0 } }
}

/// Runs `graph` to its end and returns the recorder.
func run(_ graph: GraphDescription, registry: NodeRegistry = .core, options: AudioEngine.Options = .init(),
         tap: (node: String, size: Int)? = nil, slowTap: Bool = false) async throws -> (Recorder, EndReason) {
    let engine = try AudioEngine(graph: graph, registry: registry, options: options)
    try engine.prepare()
    let r = Recorder()
    engine.setEventHandler { r.record($0) }
    if let tap {
        try engine.installTap(onNode: tap.node, bufferSize: tap.size) { b in
            if slowTap { usleep(200) }
            r.record(b)
        }
    }
    let reason = try await engine.run()
    return (r, reason)
}

/// A ramp source: sample n of the stream has value n (exact in Float up to 2^24).
final class RampSource: AudioNode {
    static let descriptor = NodeDescriptor(
        type: "ramp", summary: "Counts samples (tests).", role: .source,
        parameters: [ParameterSpec("frames", .integer(1...10_000_000), default: 10000, help: "length")],
        make: { p throws(GraphError) in RampSource(frames: p.integer("frames")) })

    let frames: Int
    var n = 0
    init(frames: Int) { self.frames = frames }

    func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] {
        [StreamFormat(sampleRate: 16000, channelCount: 1)]
    }
    var durationFrames: Int64? { Int64(frames) }

    func process(_ io: inout ProcessIO) -> FlowStatus {
        let k = min(io.requestedFrames, frames - n)
        let out = io.outputs[0].channel(0)
        for i in 0..<k { out[i] = Float(n + i) }
        io.outputs[0].frameLength = k
        n += k
        return n >= frames ? .endOfStream : .ok
    }

    func reset() { n = 0 }
}

extension NodeRegistry {
    static let testing: NodeRegistry = {
        var r = NodeRegistry.core
        r.register(RampSource.descriptor)
        return r
    }()
}
