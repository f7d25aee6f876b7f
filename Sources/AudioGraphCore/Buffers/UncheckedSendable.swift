/// Carries a non-Sendable value into a thread or `@Sendable` closure that becomes its only
/// user (a node's worker thread, a test's factory). The caller vouches for the hand-off.
package struct UncheckedSendable<T>: @unchecked Sendable {
    /// The wrapped value.
    public let value: T
    /// Wraps `value`; the caller vouches for how it crosses threads.
    public init(_ value: T) { self.value = value }
}
