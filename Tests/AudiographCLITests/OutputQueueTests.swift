import AudioGraph
import Foundation
import Testing

/// `audiograph run`'s output queue when its reader falls behind: whole lines are dropped, never
/// part of one, and the count of them (and their bytes) is said once, at the flush. Pipes stand
/// in for stdout and stderr.
struct OutputQueueTests {
    /// What a reader thread read (read after its semaphore is signalled).
    private final class Received: @unchecked Sendable { var data = Data() }

    /// Reads `pipe` to its end on a thread of its own; `done` is signalled then.
    private static func reading(_ pipe: Pipe) -> (Received, DispatchSemaphore) {
        let received = Received(), done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            received.data = pipe.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }
        return (received, done)
    }

    /// Flushes `queue`, closes the pipes' writing ends and waits for `done`; the warnings written.
    private static func finish(_ queue: OutputQueue, _ out: Pipe, _ err: Pipe, _ done: DispatchSemaphore) -> String {
        queue.flush()
        out.fileHandleForWriting.closeFile()
        err.fileHandleForWriting.closeFile()
        done.wait()
        return String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    @Test func aReaderFarBehindLosesWholeLinesAndIsToldHowMany() throws {
        let out = Pipe(), err = Pipe()
        let capacity = 256 << 10, lines = 1024
        let queue = OutputQueue(capacity: capacity, warnings: err.fileHandleForWriting.fileDescriptor)
        let line = String(repeating: "x", count: 1023) + "\n"
        // 1 MiB while nobody reads: the pipe takes 64 KiB, the queue 256 KiB, the rest is lost.
        for _ in 0..<lines { queue.write(line, to: out.fileHandleForWriting.fileDescriptor) }
        let (received, done) = Self.reading(out)
        let warning = Self.finish(queue, out, err, done)

        let text = String(decoding: received.data, as: UTF8.self)
        let written = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(text.hasSuffix("\n") && written.allSatisfy { $0.count == 1023 }, "only whole lines reach the reader")
        let lost = lines - written.count
        #expect(lost > 0 && written.count * 1024 <= capacity + 65536 + 1024,
                "the queue held no more than its capacity (and the pipe its buffer): \(written.count) lines written")
        #expect(warning == "audiograph: warning: \(lost) lines of output (\(lost * 1024) bytes) were not written: "
                + "their reader fell more than 0.25 MiB behind\n", "\(warning)")
    }

    @Test func aReaderThatKeepsUpLosesNothingAndHearsNothing() throws {
        let out = Pipe(), err = Pipe()
        let queue = OutputQueue(capacity: 256 << 10, warnings: err.fileHandleForWriting.fileDescriptor)
        let (received, done) = Self.reading(out)
        for i in 0..<1024 { queue.write("line \(i)\n", to: out.fileHandleForWriting.fileDescriptor) }
        let warning = Self.finish(queue, out, err, done)
        #expect(String(decoding: received.data, as: UTF8.self) == (0..<1024).map { "line \($0)\n" }.joined(), "every line, in order")
        #expect(warning.isEmpty, "\(warning)")
    }
}
