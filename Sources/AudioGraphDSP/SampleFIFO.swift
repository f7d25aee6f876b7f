/// A bounded FIFO of 16-bit samples (float in, float out), allocated once.
struct SampleFIFO {
    private var storage: [Int16]
    private var head = 0
    private(set) var count = 0

    init(capacity: Int) { storage = [Int16](repeating: 0, count: max(1, capacity)) }

    var space: Int { storage.count - count }

    mutating func push(zeros n: Int) {
        for _ in 0..<min(n, space) { append(0) }
    }

    mutating func push(_ p: UnsafeMutablePointer<Float>, count n: Int) {
        for i in 0..<min(n, space) { append(Int16(max(-32768, min(32767, (p[i] * 32768).rounded())))) }
    }

    mutating func push(_ frame: [Int16]) {
        for v in frame where space > 0 { append(v) }
    }

    private mutating func append(_ v: Int16) {
        storage[(head + count) % storage.count] = v
        count += 1
    }

    mutating func pop(into frame: inout [Int16]) {
        for i in 0..<frame.count { frame[i] = popOne() }
    }

    mutating func pop(into p: UnsafeMutablePointer<Float>, count n: Int) {
        for i in 0..<n { p[i] = Float(popOne()) / 32768 }
    }

    private mutating func popOne() -> Int16 {
        guard count > 0 else { return 0 }
        let v = storage[head]
        head = (head + 1) % storage.count
        count -= 1
        return v
    }
}
