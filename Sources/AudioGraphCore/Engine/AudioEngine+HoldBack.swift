/// Live input in bursts (a pipe or network source written in one go, the backlog after a
/// stall): the render thread would pass the whole burst to a node working behind the audio
/// (a recognizer) faster than it decodes, and its bounded queue would drop the rest. So,
/// before each block of a live run, while such a node cannot take another block and the
/// clock source still holds the backlog (``AudioNode/holdsBacklog``: the sound server keeps
/// it), the render thread waits for the node to make room. A burst then costs latency, not
/// words; past what the source can hold the graph renders on and the node drops, counted
/// and reported as before.
extension AudioEngine {
    /// Waits (live input only) while a node working behind the audio is full and the clock
    /// source can keep what arrives meanwhile; returns at once otherwise, or on cancel.
    func holdBackForLaggingNodes() {
        guard let plan, plan.isLive, let clock = plan.clock, !plan.behind.isEmpty else { return }
        while !cancelRequested.load(ordering: .relaxed) {
            let mark = renderReady.mark()
            guard plan.behind.contains(where: { !$0.ended && !$0.node.canTakeBlock }), clock.node.holdsBacklog else { return }
            renderReady.wait(unchangedFrom: mark, timeout: 0.05)
        }
    }
}
