import Foundation
import Synchronization
import Testing

@testable import AudioGraphCore

/// Work behind the audio takes turns in a process's work slots: never more at once than
/// there are slots, first come first served, and a long backlog gives way after a quantum.
@Suite struct WorkSlotsTests {
    private static let format = StreamFormat(sampleRate: 1000, channelCount: 1)

    /// A stage with `blocks` blocks queued before its worker starts.
    private static func stage(_ name: String, blocks: Int) -> LaggingStage {
        let stage = LaggingStage(name: name, format: format, maxFrames: 10, blockCount: max(1, blocks), policy: .block)
        let b = AudioBuffer(format: format, frameCapacity: 10)
        b.frameLength = 10
        for i in 0..<blocks {
            b.sampleTime = Int64(i * 10)
            stage.write(b)
        }
        return stage
    }

    @Test func noMoreStagesWorkAtOnceThanThereAreSlots() {
        let slots = WorkSlots(2)
        let active = Atomic<Int>(0), most = Atomic<Int>(0), done = Atomic<Int>(0)
        let stages = (0..<5).map { Self.stage("s\($0)", blocks: 20) }
        for stage in stages {
            stage.start(slots: slots) { stage in
                while let (index, _) = stage.next() {
                    let now = active.add(1, ordering: .acquiringAndReleasing).newValue
                    most.max(now, ordering: .relaxed)
                    usleep(1000)
                    active.subtract(1, ordering: .acquiringAndReleasing)
                    done.add(1, ordering: .relaxed)
                    stage.release(index)
                }
            }
        }
        for stage in stages { stage.finish() }
        #expect(done.load(ordering: .relaxed) == 100)
        #expect((1...2).contains(most.load(ordering: .relaxed)), "\(most.load(ordering: .relaxed)) stages worked at once on 2 slots")
        #expect(slots.waiting == 0)
    }

    @Test func slotsGoInTheOrderTheyWereAskedFor() {
        let slots = WorkSlots(1)
        slots.acquire()
        // `Locked` (an NSLock, which ThreadSanitizer sees): it reported the Synchronization
        // Mutex's accesses here as a race, synchronised only "as if via sleep".
        let order = Locked<[String]>([])
        var threads: [Thread] = []
        for (k, name) in ["first", "second", "third"].enumerated() {
            let t = Thread {
                slots.acquire()
                order.withLock { $0.append(name) }
                slots.release()
            }
            t.start()
            threads.append(t)
            while slots.waiting < k + 1 { usleep(100) }  // each asks after the one before
        }
        slots.release()
        while order.withLock({ $0.count }) < 3 { usleep(100) }
        #expect(order.withLock { $0 } == ["first", "second", "third"])
    }

    @Test func aLongBacklogGivesWayAfterTheQuantum() {
        let slots = WorkSlots(1)
        let long = Self.stage("long", blocks: 100), short = Self.stage("short", blocks: 1)
        let log = Mutex<[String]>([])
        long.start(slots: slots) { stage in
            var first = true
            while let (index, _) = stage.next() {
                if first {
                    short.start(slots: slots) { stage in
                        while let (index, _) = stage.next() {
                            log.withLock { $0.append("short") }
                            stage.release(index)
                        }
                    }
                    while slots.waiting == 0 { usleep(100) }  // the short stage waits for the slot
                    first = false
                }
                usleep(1000)
                log.withLock { $0.append("long") }
                stage.release(index)
            }
        }
        long.finish()
        short.finish()
        let entries = log.withLock { $0 }
        let at = entries.firstIndex(of: "short") ?? entries.count
        #expect(entries.count == 101)
        // 1 ms a block, a 20 ms quantum: the short stage's block goes in after 20-40 of the long one's.
        #expect(at < 60, "the short stage's block came after \(at) of the long stage's")
    }
}
