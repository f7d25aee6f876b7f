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
    /// From the event handler or a tap (the delivery thread) it returns at once during the
    /// run's last events, and before them is a programming error that stops the process:
    /// the run cannot end while its delivery thread waits.
    public func waitUntilEnded() -> EndReason {
        if deliveryThread.isCurrent {
            guard let r = lock.withLock({ $0.endReason ?? $0.ending }) else {
                preconditionFailure("AudioEngine.waitUntilEnded() called from the engine's event handler or a tap before "
                                    + "the end: the run cannot end while its delivery thread waits")
            }
            return r
        }
        while true {
            if let r = waitUntilEnded(timeout: 1) { return r }
        }
    }

    /// Blocks up to `timeout` seconds; returns the end reason if the run has ended. From the
    /// event handler or a tap (the delivery thread) it does not wait: nothing is delivered
    /// while they run, so it returns the reason during the run's last events, nil before.
    public func waitUntilEnded(timeout: Double) -> EndReason? {
        if deliveryThread.isCurrent { return lock.withLock { $0.endReason ?? $0.ending } }
        let deadline = monotonicSeconds() + timeout
        endedCondition.lock()
        defer { endedCondition.unlock() }
        while true {
            if let r = lock.withLock({ $0.endReason }) { return r }
            let left = deadline - monotonicSeconds()
            if left <= 0 || !endedCondition.wait(seconds: left) { return lock.withLock { $0.endReason } }
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
            deliveryCondition.wait(seconds: deadline - now)
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
