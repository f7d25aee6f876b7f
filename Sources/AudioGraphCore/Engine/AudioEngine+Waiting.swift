import Foundation

/// Waiting for the end of a run: from async code, or blocking a thread (the CLI).
extension AudioEngine {
    /// Waits for the end of the run and returns why it ended.
    public func ended() async -> EndReason {
        await withCheckedContinuation { (c: CheckedContinuation<EndReason, Never>) in
            let done: EndReason? = lock.withLock { shared in
                if let r = shared.endReason { return r }
                shared.waiters.append(c)
                return nil
            }
            if let done { c.resume(returning: done) }
        }
    }

    /// Blocks the calling thread until the run ends (for synchronous callers like the CLI).
    public func waitUntilEnded() -> EndReason {
        while true {
            if let r = waitUntilEnded(timeout: 1) { return r }
        }
    }

    /// Blocks up to `timeout` seconds; returns the end reason if the run has ended.
    public func waitUntilEnded(timeout: Double) -> EndReason? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        endedCondition.lock()
        defer { endedCondition.unlock() }
        while true {
            if let r = lock.withLock({ $0.endReason }) { return r }
            if !endedCondition.wait(until: deadline) { return lock.withLock { $0.endReason } }
        }
    }

    /// Blocks until every event about the audio before stream time `t` has been delivered,
    /// the run has ended, delivery has not moved for `idle` seconds (the graph holds the rest
    /// for more input: a resampler's filter, the vad's look-ahead) or `timeout` has passed;
    /// whether `t` was reached. For a caller that answers each piece of audio it pushes with
    /// what was heard in it (vosk's protocol). Any thread but the render thread.
    @discardableResult
    package func waitForDelivery(through t: Double, idle: Double = 0.2, timeout: Double = 2) -> Bool {
        let start = monotonicSeconds()
        var movedAt = start
        deliveryCondition.lock()
        defer { deliveryCondition.unlock() }
        var last = Double(bitPattern: deliveredThrough.load(ordering: .acquiring))
        while last < t {
            if lock.withLock({ $0.endReason }) != nil { return true }
            let now = monotonicSeconds(), deadline = min(start + timeout, movedAt + idle)
            if now >= deadline { return false }
            _ = deliveryCondition.wait(until: Date(timeIntervalSinceNow: deadline - now))
            let through = Double(bitPattern: deliveredThrough.load(ordering: .acquiring))
            if through > last { last = through; movedAt = monotonicSeconds() }
        }
        return true
    }

    /// Delivery thread: `deliveredThrough` moved; wakes the render thread's lockstep wait and
    /// every ``waitForDelivery(through:idle:timeout:)``.
    func deliveryMoved() {
        deliveredWake.signal()
        deliveryCondition.lock()
        deliveryCondition.broadcast()
        deliveryCondition.unlock()
    }
}
