import Foundation
import Testing

@testable import AudioGraphCore

@Suite struct SPSCQueueTests {
    @Test func keepsOrderAndRefusesWhenFull() {
        let q = SPSCQueue<Int>(capacity: 3)
        #expect(q.push(1) && q.push(2) && q.push(3))
        #expect(!q.push(4), "a full queue refuses instead of growing")
        #expect(q.pop() == 1)
        #expect(q.push(4))
        #expect([q.pop(), q.pop(), q.pop(), q.pop()] == [2, 3, 4, nil])
    }

    @Test func handsOverEveryItemInOrderAcrossThreads() async {
        let q = SPSCQueue<Int>(capacity: 64)
        let count = 200_000
        let producer = Thread {
            var i = 0
            while i < count { if q.push(i) { i += 1 } }
        }
        producer.start()
        var expected = 0
        var outOfOrder = 0
        while expected < count {
            if let v = q.pop() {
                if v != expected { outOfOrder += 1 }
                expected += 1
            }
        }
        #expect(outOfOrder == 0)
        #expect(q.pop() == nil)
    }
}
