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
}
