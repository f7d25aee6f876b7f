import Synchronization

/// The tap slots of one output bus. The render thread checks one atomic per bus per block,
/// and one per slot when a tap is active; a slot's tap is stored before the slot is marked
/// active (release ordering), so installing and removing taps is safe while the engine runs.
final class TapPoint: @unchecked Sendable {
    /// One place for a tap; a bus has ``TapPoint/slotCount`` of them.
    final class Slot: @unchecked Sendable {
        /// Where a slot is in its life.
        enum State: Int {
            /// No tap: the control thread may install one.
            case free
            /// The render thread copies each block to its tap.
            case active
            /// Removed: the delivery thread drains its tap, then frees the slot once the
            /// render thread can no longer be in a block that saw it active.
            case removed
        }
        private let raw = Atomic<Int>(State.free.rawValue)
        /// The slot's state (acquire: the tap written before it was set is visible).
        var state: State { State(rawValue: raw.load(ordering: .acquiring))! }
        /// Sets the state, publishing the tap written before (release).
        func set(_ s: State) { raw.store(s.rawValue, ordering: .releasing) }
        /// Written by the control thread while free; read by the render thread while active.
        var tap: Tap?
        /// Delivery thread only: the engine's block count when the removal was first seen.
        var removedAt = -1
    }

    static let slotCount = 4

    let format: StreamFormat
    let maxFrames: Int
    let slots: [Slot]
    /// Slots marked active: a bus with none is skipped without touching its slots (which
    /// would retain each of them, every block).
    private let activeSlots = Atomic<Int>(0)

    init(format: StreamFormat, maxFrames: Int) {
        self.format = format
        self.maxFrames = maxFrames
        slots = (0..<Self.slotCount).map { _ in Slot() }
    }

    /// Marks `slot`, whose tap is set, active. Control thread.
    func activate(_ slot: Slot) {
        slot.set(.active)
        activeSlots.add(1, ordering: .releasing)
    }

    /// Marks active `slot` removed. Control thread.
    func remove(_ slot: Slot) {
        guard slot.state == .active else { return }
        slot.set(.removed)
        activeSlots.subtract(1, ordering: .releasing)
    }

    /// Copies `buffer` to every active tap. Render thread; real-time safe. A tap activated
    /// while a block renders may start with the next block.
    @inline(__always)
    func deliver(_ buffer: AudioBuffer) {
        guard activeSlots.load(ordering: .acquiring) > 0 else { return }
        for slot in slots where slot.state == .active {
            slot.tap.unsafelyUnwrapped.queue.write(buffer)
        }
    }
}
