import Dispatch
import Synchronization

/// Wakes one waiting thread when another has made work for it, without a lock on the
/// signalling side (an event count over a semaphore).
///
/// `signal()` costs one atomic exchange when nobody sleeps, so a producer may call it for
/// every buffer (the PulseAudio read callback, the render thread after each block). The
/// single consumer calls `wait(timeout:until:)`, which re-checks its condition after
/// announcing that it sleeps, so a signal between the check and the sleep is never lost.
public final class Wakeup: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let sleeping = Atomic<Bool>(false)

    /// A wake-up nobody waits on yet.
    public init() {}

    /// Wakes the consumer if it sleeps. Any thread; no allocation, no lock.
    @inline(__always)
    public func signal() {
        if sleeping.exchange(false, ordering: .sequentiallyConsistent) { semaphore.signal() }
    }

    /// Sleeps until signalled or `timeout` seconds passed, unless `ready()` already holds.
    /// One consumer thread only.
    public func wait(timeout: Double, until ready: () -> Bool) {
        sleeping.store(true, ordering: .sequentiallyConsistent)
        if ready() {
            // Take back the announcement; if a producer already took it, its signal is on
            // the way and must be consumed so the next wait does not return early.
            if !sleeping.exchange(false, ordering: .sequentiallyConsistent) { semaphore.wait() }
            return
        }
        let nanoseconds = Int(max(0, timeout) * 1e9)
        if semaphore.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut,
           !sleeping.exchange(false, ordering: .sequentiallyConsistent)
        {
            semaphore.wait()  // a signal raced the timeout
        }
    }
}
