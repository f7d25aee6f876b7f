/// One node's place in a ``RenderPlan``: the node, the buffers it reads and writes, and
/// its run state. Touched only by the render thread once running.
package final class RenderStep {
    package let index: Int
    package let id: String
    package let node: any AudioNode
    let role: NodeDescriptor.Role
    /// Buffers of the upstream output buses, in input-bus order (shared with fan-out): the
    /// ones `io` hands the node.
    var inputs: [AudioBuffer] { io.inputs }
    /// This node's own output buffers (`io`'s).
    package var outputs: [AudioBuffer] { io.outputs }
    /// Upstream step of each input bus, parallel to `inputs`.
    let upstream: [RenderStep]
    /// Per input bus: has its upstream ended? Preallocated, refreshed every block.
    let inputEnded: UnsafeMutableBufferPointer<Bool>
    /// Frames produced so far on each output bus (the next block's `sampleTime`).
    @exclusivity(unchecked) package var produced: [Int64]
    /// Stream seconds produced on the first output bus (0 without one).
    var producedSeconds: Double {
        guard let f = outputs.first?.format else { return 0 }
        return Double(produced[0]) / f.sampleRate
    }
    /// Tap points, one per output bus.
    let taps: [TapPoint]
    @exclusivity(unchecked) package var ended = false
    /// What `process` returned last (after the plan's handling of `.notReady`).
    @exclusivity(unchecked) package var lastStatus: FlowStatus?
    /// Stream time through which the node has been given input (the end of its last input
    /// block); read for nodes that work behind the audio (``AudioNode/worksBehind``).
    @exclusivity(unchecked) var givenThrough = -Double.infinity
    /// A source asked to deliver what it holds and end (stop).
    @exclusivity(unchecked) var stopping = false
    /// Whether the engine copies input 0's markers to the outputs (node makes none itself).
    let forwardsMarkers: Bool
    /// What `process` is handed, made once (its buffers and outlet never change); the engine
    /// sets the per-block fields before each call, so a block retains no arrays.
    @exclusivity(unchecked) var io: ProcessIO

    init(index: Int, id: String, node: any AudioNode, role: NodeDescriptor.Role, inputs: [AudioBuffer],
         outputs: [AudioBuffer], upstream: [RenderStep], forwardsMarkers: Bool, events: EventOutlet) {
        self.forwardsMarkers = forwardsMarkers
        self.index = index
        self.id = id
        self.node = node
        self.role = role
        self.upstream = upstream
        inputEnded = .allocate(capacity: max(inputs.count, 1))
        inputEnded.initialize(repeating: false)
        produced = Array(repeating: 0, count: outputs.count)
        taps = outputs.map { TapPoint(format: $0.format, maxFrames: $0.frameCapacity) }
        io = ProcessIO(inputs: inputs, outputs: outputs, inputsEnded: false, requestedFrames: 0, events: events,
                       nodeIndex: Int32(index), inputEnded: UnsafeBufferPointer(inputEnded))
    }

    deinit { inputEnded.deallocate() }

    /// Back to stream time 0 (after `reset`).
    func rewind() {
        ended = false
        lastStatus = nil
        stopping = false
        givenThrough = -.infinity
        for i in produced.indices { produced[i] = 0 }
        for o in outputs { o.frameLength = 0; o.sampleTime = 0 }
    }
}
