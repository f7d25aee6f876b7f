import Synchronization

/// The tap slots of one output bus. The render thread checks one atomic per slot per
/// block; a slot's tap is stored before the slot is marked active (release ordering), so
/// installing and removing taps is safe while the engine runs.
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

    init(format: StreamFormat, maxFrames: Int) {
        self.format = format
        self.maxFrames = maxFrames
        slots = (0..<Self.slotCount).map { _ in Slot() }
    }

    /// Copies `buffer` to every active tap. Render thread; real-time safe.
    @inline(__always)
    func deliver(_ buffer: AudioBuffer) {
        for slot in slots where slot.state == .active {
            slot.tap.unsafelyUnwrapped.queue.write(buffer)
        }
    }
}
