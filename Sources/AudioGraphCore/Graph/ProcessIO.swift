/// The buffers and event outlet handed to `AudioNode.process` for one block.
///
/// Inputs are read-only by convention (they may be shared with other readers through
/// fan-out). A node sets `frameLength` on each of its outputs; the engine stamps
/// `sampleTime`.
public struct ProcessIO {
    /// One buffer per connected input bus, in bus order.
    public let inputs: [AudioBuffer]
    /// One buffer per output bus.
    public let outputs: [AudioBuffer]
    /// True once every upstream node has ended: flush any tail and return `.endOfStream`.
    public internal(set) var inputsEnded: Bool
    /// Frames the engine asks a source for in this block.
    public internal(set) var requestedFrames: Int
    /// For a source: the run is stopping; deliver what is buffered, then `.endOfStream`.
    public internal(set) var isStopping = false
    /// For a source: every other source has ended and every event about their audio has been
    /// delivered, so a node answering what the graph heard (a speech-synth's replies) has
    /// heard all it will: it may end once it is done.
    public internal(set) var othersFinished = false
    /// Per input bus: whether its upstream node has ended.
    public let inputEnded: UnsafeBufferPointer<Bool>
    var events: EventOutlet
    let nodeIndex: Int32

    package init(inputs: [AudioBuffer], outputs: [AudioBuffer], inputsEnded: Bool, requestedFrames: Int,
         events: EventOutlet, nodeIndex: Int32, inputEnded: UnsafeBufferPointer<Bool>) {
        self.inputs = inputs
        self.outputs = outputs
        self.inputsEnded = inputsEnded
        self.requestedFrames = requestedFrames
        self.events = events
        self.nodeIndex = nodeIndex
        self.inputEnded = inputEnded
    }

    /// Asks the engine to end the run after this block (sources end, what is in the graph
    /// drains) with `reason`: `.endOfSpeech` or `.noSpeech` from an end-of-speech detector.
    /// The first request wins. Real-time safe.
    public func requestEnd(_ reason: EndReason) {
        let code = 1 + (EngineMarker.reasons.firstIndex(of: reason) ?? 0)
        _ = events.endRequest.compareExchange(expected: 0, desired: code, ordering: .relaxed)
    }

    /// States a decision about the stream once: it travels downstream as `marker` on
    /// `output`, and the kinds that have a public event (speech start and end, utterance end)
    /// are reported as it, from the same record, so the two cannot disagree. Hints of
    /// possible speech go downstream only. Real-time safe; returns false if the block's
    /// markers are full.
    @discardableResult
    public func record(_ marker: StreamMarker, on output: AudioBuffer) -> Bool {
        switch marker.kind {
        case .speechStart: emit(NodeEvent(.speechStart, t: marker.t, decided: marker.decided))
        case .speechEnd: emit(NodeEvent(.speechEnd, t: marker.t, decided: marker.decided))
        case .utteranceEnd:
            emit(NodeEvent(.utteranceEnd, t: marker.t, decided: marker.decided, values: (Double(marker.utterance), 0, 0, 0)))
        case .speechPossible, .speechDropped: break
        }
        return output.addMarker(marker)
    }

    /// Emits an event in stream order. Real-time safe; returns false if it was dropped.
    @discardableResult
    public func emit(_ event: NodeEvent) -> Bool {
        var e = event
        e.node = nodeIndex
        return events.emit(e)
    }
}
