import Synchronization

/// A bounded, lock-free single-producer single-consumer queue of trivial values.
///
/// The one hand-off between two threads in the engine (JUCE's `AbstractFifo`): the
/// producer only moves `tail`, the consumer only moves `head`, both with acquire/release
/// ordering, so neither ever waits on a lock. Storage is allocated once. `push` fails
/// when full and `pop` returns nil when empty; what to do then (wait, or drop and count)
/// is the caller's declared policy.
package final class SPSCQueue<Element: BitwiseCopyable>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Element>
    /// Capacity in elements.
    public let capacity: Int
    private let head = Atomic<Int>(0)   // next index to read; written by the consumer
    private let tail = Atomic<Int>(0)   // next index to write; written by the producer

    /// Allocates room for `capacity` elements. Not real-time.
    public init(capacity: Int) {
        self.capacity = max(capacity, 1)
        slots = .allocate(capacity: self.capacity)
    }

    deinit { slots.deallocate() }

    /// Appends `value` if there is room. Producer thread only; real-time safe.
    @inline(__always)
    public func push(_ value: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        if t - head.load(ordering: .acquiring) >= capacity { return false }
        (slots + t % capacity).initialize(to: value)
        tail.store(t + 1, ordering: .releasing)
        return true
    }

    /// Removes the oldest element. Consumer thread only; real-time safe.
    @inline(__always)
    public func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        if h == tail.load(ordering: .acquiring) { return nil }
        let value = slots[h % capacity]
        head.store(h + 1, ordering: .releasing)
        return value
    }

    /// Elements waiting (approximate from any thread other than the two ends).
    public var count: Int { tail.load(ordering: .acquiring) - head.load(ordering: .acquiring) }

    /// Whether a push would fail right now (producer side).
    public var isFull: Bool { count >= capacity }
}
