import Foundation

/// A lock with a condition whose timed waits run on the monotonic clock.
///
/// Foundation's `NSCondition.wait(until:)` waits for a wall-clock date: when the system clock
/// is stepped back (NTP at boot, a virtual machine resumed), a wait of 0.2 s lasts as long as
/// the step; stepped forward, it ends at once. Waits here are measured in seconds of
/// `CLOCK_MONOTONIC`, which no clock change moves. Not for the render thread (it locks).
public final class MonotonicCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// An unlocked condition nobody waits on.
    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    /// Takes the lock.
    public func lock() { pthread_mutex_lock(mutex) }

    /// Gives the lock back.
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// With the lock held: gives it up until signalled (or a spurious wake-up), then takes it back.
    public func wait() { pthread_cond_wait(cond, mutex) }

    /// With the lock held: as ``wait()`` for at most `seconds` of the monotonic clock; false
    /// when that time passed without a signal.
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let whole = max(0, seconds).rounded(.down)
        var nanoseconds = Int(now.tv_nsec) + Int((max(0, seconds) - whole) * 1e9)
        var deadline = timespec(tv_sec: now.tv_sec + Int(min(whole, 1e9)), tv_nsec: 0)
        if nanoseconds >= 1_000_000_000 { nanoseconds -= 1_000_000_000; deadline.tv_sec += 1 }
        deadline.tv_nsec = nanoseconds
        return pthread_cond_timedwait(cond, mutex, &deadline) != ETIMEDOUT
    }

    /// Wakes one waiting thread.
    public func signal() { pthread_cond_signal(cond) }

    /// Wakes every waiting thread.
    public func broadcast() { pthread_cond_broadcast(cond) }
}
