import Synchronization

/// The render thread's end of the event ring.
///
/// With a `.block` policy (file input: lossless and deterministic) a full ring makes the
/// render thread wait for the delivery thread; with `.drop` (live input: the device must
/// not wait) the event is dropped and counted.
package final class EventOutlet: @unchecked Sendable {
    package let ring: SPSCQueue<NodeEvent>
    let policy: BackpressurePolicy
    let dropped = Atomic<Int>(0)
    let abandon: Atomic<Bool>
    /// A node's request to end the run: 0 none, else 1 + index in `EngineMarker.reasons`.
    let endRequest = Atomic<Int>(0)

    package init(capacity: Int, policy: BackpressurePolicy) {
        ring = SPSCQueue(capacity: capacity)
        self.policy = policy
        self.abandon = Atomic(false)
    }

    @inline(__always)
    func emit(_ event: NodeEvent) -> Bool {
        if ring.push(event) { return true }
        if policy == .block {
            while !abandon.load(ordering: .relaxed) {
                Backoff.pause()
                if ring.push(event) { return true }
            }
        }
        dropped.add(1, ordering: .relaxed)
        return false
    }
}

/// What a producer does when a bounded queue is full.
package enum BackpressurePolicy: Sendable {
    /// Wait for the consumer (file input: nothing lost, output deterministic).
    case block
    /// Drop the new item and count it (live input: the device cannot wait).
    case drop
}
