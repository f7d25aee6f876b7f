import Foundation

/// A value behind a lock, for state shared by control, delivery and worker threads
/// (never the render thread).
///
/// Built on `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: on Linux the
/// latter is a bare futex that ThreadSanitizer cannot see, so every use showed up as a race
/// under `swift test --sanitize=thread`, hiding real ones.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Guards `value`.
    public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    public func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
