/// Carries a non-Sendable value into a thread or `@Sendable` closure that becomes its only
/// user (a node's worker thread, a test's factory). The caller vouches for the hand-off.
public struct UncheckedSendable<T>: @unchecked Sendable {
    public let value: T
    public init(_ value: T) { self.value = value }
}
