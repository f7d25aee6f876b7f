import Foundation

/// The one way a thread of the engine waits for another without a lock: a short sleep.
/// Used by a producer waiting for queue space under a `.block` policy and by the delivery
/// thread when idle.
enum Backoff {
    /// Sleeps about 100 microseconds.
    @inline(__always)
    static func pause() { usleep(100) }

    /// Sleeps about one millisecond.
    @inline(__always)
    static func idle() { usleep(1000) }
}
