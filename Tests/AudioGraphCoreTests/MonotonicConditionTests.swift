import Foundation
import Synchronization
import Testing

@testable import AudioGraphCore

/// The condition behind the engine's and the server's timed waits: a timed wait ends at its
/// time on the monotonic clock without a signal, or earlier with one.
@Suite struct MonotonicConditionTests {
    @Test func aWaitNobodySignalsEndsAfterItsTimeAndSaysSo() {
        let condition = MonotonicCondition()
        condition.lock()
        let start = monotonicSeconds()
        let signalled = condition.wait(seconds: 0.05)  // one wait: it must not end before its time
        let waited = monotonicSeconds() - start
        condition.unlock()
        #expect(!signalled)
        #expect(waited >= 0.05, "\(waited) s")
    }

    @Test func aTimeAlreadyPastDoesNotWait() {
        let condition = MonotonicCondition()
        condition.lock()
        #expect(!condition.wait(seconds: -1))
        #expect(!condition.wait(seconds: 0))
        condition.unlock()
    }

    @Test func aBroadcastWakesEveryWaiterBeforeItsTime() {
        let condition = MonotonicCondition()
        let ready = Atomic<Int>(0), woken = Atomic<Int>(0)
        let go = Atomic<Bool>(false)  // written and read under the condition's lock
        let threads = (0..<3).map { _ in
            Thread {
                condition.lock()
                ready.add(1, ordering: .relaxed)
                while !go.load(ordering: .relaxed) { if !condition.wait(seconds: 60) { break } }
                if go.load(ordering: .relaxed) { woken.add(1, ordering: .relaxed) }
                condition.unlock()
            }
        }
        threads.forEach { $0.start() }
        while ready.load(ordering: .relaxed) < 3 { usleep(1000) }
        condition.lock()
        go.store(true, ordering: .relaxed)
        condition.broadcast()
        condition.unlock()
        let start = monotonicSeconds()
        while woken.load(ordering: .relaxed) < 3 && monotonicSeconds() - start < 30 { usleep(1000) }
        #expect(woken.load(ordering: .relaxed) == 3)
    }
}
