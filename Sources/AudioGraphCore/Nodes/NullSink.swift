/// `null-sink`: consumes its input and discards it (GStreamer's fakesink).
package final class NullSink: AudioNode {
    /// The `null-sink` node type: its parameters, buses and factory.
    package static let descriptor = NodeDescriptor(
        type: "null-sink", summary: "Discards its input (for benchmarks and graphs that only emit events).",
        role: .sink, make: { _ throws(GraphError) in NullSink() })

    /// Frames consumed so far (render thread).
    package private(set) var frames: Int64 = 0

    package func process(_ io: inout ProcessIO) -> FlowStatus {
        frames += Int64(io.inputs[0].frameLength)
        return .ok
    }

    package func reset() { frames = 0 }
}
