import AudioGraph
import Foundation
import Testing

/// `audiograph run`'s output queue when its reader falls behind: whole lines are dropped, never
/// part of one, and the count of them (and their bytes) is said once, at the flush. Pipes stand
/// in for stdout and stderr; the reader reads nothing until everything has been written.
struct OutputQueueTests {
    /// What a reader thread has read (read after its semaphore is signalled).
    private final class Received: @unchecked Sendable { var bytes: [UInt8] = [] }

    /// Starts reading `fd` on a thread of its own, to its end; `done` is signalled then.
    private static func reading(_ fd: Int32) -> (Received, DispatchSemaphore) {
        let received = Received(), done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            received.bytes = readAll(fd)
            done.signal()
        }
        return (received, done)
    }

    /// Everything readable from `fd` until its writers close it.
    private static func readAll(_ fd: Int32) -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n > 0 { out += chunk[0..<n] } else if n < 0 && errno == EINTR { continue } else { return out }
        }
    }

    @Test func aReaderFarBehindLosesWholeLinesAndIsToldHowMany() throws {
        var out: [Int32] = [0, 0], err: [Int32] = [0, 0]
        try #require(pipe(&out) == 0 && pipe(&err) == 0)
        let capacity = 256 << 10, lines = 1024
        let queue = OutputQueue(capacity: capacity, warnings: err[1])
        let line = String(repeating: "x", count: 1023) + "\n"
        // 1 MiB while nobody reads: the pipe takes 64 KiB, the queue 256 KiB, the rest is lost.
        for _ in 0..<lines { queue.write(line, to: out[1]) }
        let (received, done) = Self.reading(out[0])
        queue.flush()
        close(out[1])
        close(err[1])
        done.wait()
        let warning = String(decoding: Self.readAll(err[0]), as: UTF8.self)
        close(out[0])
        close(err[0])

        let text = String(decoding: received.bytes, as: UTF8.self)
        let written = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(text.hasSuffix("\n") && written.allSatisfy { $0.count == 1023 }, "only whole lines reach the reader")
        let lost = lines - written.count
        #expect(lost > 0 && written.count * 1024 <= capacity + 65536 + 1024,
                "the queue held no more than its capacity (and the pipe its buffer): \(written.count) lines written")
        #expect(warning == "audiograph: warning: \(lost) lines of output (\(lost * 1024) bytes) were not written: "
                + "their reader fell more than 0.25 MiB behind\n", "\(warning)")
    }

    @Test func aReaderThatKeepsUpLosesNothingAndHearsNothing() throws {
        var out: [Int32] = [0, 0], err: [Int32] = [0, 0]
        try #require(pipe(&out) == 0 && pipe(&err) == 0)
        let queue = OutputQueue(capacity: 256 << 10, warnings: err[1])
        let (received, done) = Self.reading(out[0])
        for i in 0..<1024 { queue.write("line \(i)\n", to: out[1]) }
        queue.flush()
        close(out[1])
        close(err[1])
        done.wait()
        let warning = Self.readAll(err[0])
        close(out[0])
        close(err[0])
        let text = String(decoding: received.bytes, as: UTF8.self)
        #expect(text == (0..<1024).map { "line \($0)\n" }.joined(), "every line, in order")
        #expect(warning.isEmpty)
    }
}
