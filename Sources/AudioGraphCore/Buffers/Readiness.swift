import Synchronization

/// What the render thread waits on when a node is not ready (``FlowStatus/notReady``): the
/// threads that bring what nodes wait for (a decoder's progress, a file reader's data, a
/// speech worker's samples, a playback server's reads) signal it.
///
/// A count of signals over a ``Wakeup``: the render thread notes the count before it asks a
/// node, and sleeps only while the count is unchanged, so a signal that comes while the node
/// is being asked is never lost. `signal()` costs an atomic add and, when nobody sleeps, one
/// exchange: producers may call it for every block.
public final class Readiness: Sendable {
    private let count = Atomic<Int>(0)
    private let wakeup = Wakeup()

    /// Nothing signalled yet.
    public init() {}

    /// Something a node may be waiting for has come. Any thread; no allocation, no lock.
    @inline(__always)
    public func signal() {
        count.add(1, ordering: .releasing)
        wakeup.signal()
    }

    /// The count now, to pass to ``wait(unchangedFrom:timeout:)`` after asking a node.
    public func mark() -> Int { count.load(ordering: .acquiring) }

    /// Sleeps until a signal newer than `mark`, or `timeout` seconds. One waiting thread.
    public func wait(unchangedFrom mark: Int, timeout: Double) {
        wakeup.wait(timeout: timeout) { count.load(ordering: .acquiring) != mark }
    }
}
