import Synchronization

/// The tap slots of one output bus. The render thread checks one atomic per slot per
/// block; a slot's tap is stored before the slot is marked active (release ordering), so
/// installing and removing taps is safe while the engine runs.
final class TapPoint: @unchecked Sendable {
    /// One place for a tap; a bus has ``TapPoint/slotCount`` of them.
    final class Slot: @unchecked Sendable {
        /// 0 = free, 1 = active, 2 = removed (the delivery thread drains, then frees it).
        let state = Atomic<Int>(0)
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
        for slot in slots where slot.state.load(ordering: .acquiring) == 1 {
            slot.tap.unsafelyUnwrapped.queue.write(buffer)
        }
    }
}
