@testable import AudioGraphClient
import Testing

/// The client's inbox: items come out in order however appends and takes interleave, and the
/// taken ones do not pile up in memory.
@Suite struct BacklogTests {
    @Test func itemsComeOutInOrderAndTakenOnesAreDropped() {
        var b = Backlog<Int>()
        #expect(b.isEmpty)
        var next = 0, expected = 0
        // Bursts of 3,000 appended, 2,000 taken: the backlog grows past the 1,024 at which
        // taken items are dropped, and never empties until the end.
        for _ in 0..<10 {
            for _ in 0..<3000 { b.append(next); next += 1 }
            for _ in 0..<2000 {
                #expect(b.takeFirst() == expected)
                expected += 1
            }
            #expect(b.takenHeld < 2048 || 2 * b.takenHeld < b.waiting.count + b.takenHeld, "taken items are dropped")
        }
        #expect(Array(b.waiting) == Array(expected..<next))
        while !b.isEmpty {
            #expect(b.takeFirst() == expected)
            expected += 1
        }
        #expect(expected == next && b.takenHeld == 0 && b.waiting.isEmpty)
    }
}
