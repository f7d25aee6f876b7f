import Foundation
import Synchronization

/// How many nodes' work behind the audio (decoders, file writers: ``LaggingStage``) may run at
/// once in this process, handed out first come, first served.
///
/// A server hosting many sessions has a decoder thread per session. Left to the kernel, ten
/// decoders on two cores take turns every few milliseconds, and each turn finds the caches
/// filled by another decoder's acoustic model: measured on this project's 2-core machine,
/// eight `audiograph run` processes decoding at once used 5.1 s of CPU each for what one
/// alone, or two at once, decode in 3.3-3.5 s. With as many slots as cores, a stage holds
/// a slot while it has audio queued and gives it back before it waits for more (or after
/// ``quantum`` while others wait), so a decoder runs its backlog through with warm caches.
///
/// Off unless set (``limit``): `audiograph serve` sets it to its `--decoders`.
package final class WorkSlots: @unchecked Sendable {
    /// Longest a stage keeps a slot while others wait (it has work queued all along).
    static let quantum: UInt64 = 20_000_000

    private let condition = NSCondition()
    private var free: Int
    private var nextTicket: UInt64 = 0
    private var serving: UInt64 = 0

    /// `count` slots (at least one).
    package init(_ count: Int) { free = max(1, count) }

    /// Waits for a slot, after every stage that asked before. Worker threads only.
    package func acquire() {
        condition.lock()
        let ticket = nextTicket
        nextTicket += 1
        while ticket != serving || free == 0 { condition.wait() }
        serving += 1
        free -= 1
        condition.broadcast()  // the next in line may find a slot free too
        condition.unlock()
    }

    /// Gives a slot back.
    package func release() {
        condition.lock()
        free += 1
        condition.broadcast()
        condition.unlock()
    }

    /// How many stages wait for a slot.
    package var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return Int(nextTicket - serving)
    }

    private static let current = Mutex<WorkSlots?>(nil)

    /// The process's slots, or nil (no limit). A stage reads it when its run starts.
    package static var limit: WorkSlots? {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}
