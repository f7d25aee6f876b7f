import AudioGraphCore
import Dispatch
import Foundation

/// What `audiograph run` prints, written on a thread of its own. Events are delivered on the
/// thread that also serves the graph's own listeners (a `speech-synth` answering a final, a
/// barge-in stopping an answer); if that thread wrote to stdout itself, a reader that stops
/// reading (a full pipe, a terminal paused with Ctrl-S) would hold the assistant with it.
/// Here the delivery thread only queues text; the writer waits on the reader alone.
///
/// The queue is bounded (``capacity`` bytes, by default 16 MiB: hours of an assistant's
/// events, 13 minutes of a level meter's every 5 ms). When a reader has fallen that far behind,
/// further lines are not queued but counted, and ``flush()`` says how many were lost in one
/// line on stderr. Writes keep their order across stdout and stderr.
package final class OutputQueue: Sendable {
    /// Bytes queued and not yet written, at most.
    package let capacity: Int
    /// Where ``flush()`` reports lost lines.
    private let warnings: Int32

    private let queue = DispatchQueue(label: "audiograph.output", qos: .userInitiated)
    /// Bytes queued and not yet written; lines and bytes refused since the last flush.
    private let state = Locked<(pending: Int, lostLines: Int, lostBytes: Int)>((0, 0, 0))
    /// The first error writing standard output (its errno), other than a reader that closed it.
    private let stdoutError = Locked<Int32?>(nil)

    /// A queue holding at most `capacity` bytes, reporting lost lines on `warnings`.
    package init(capacity: Int = 16 << 20, warnings: Int32 = STDERR_FILENO) {
        self.capacity = capacity
        self.warnings = warnings
    }

    /// Queues `text` for `fd` (STDOUT_FILENO or STDERR_FILENO); never waits for the reader.
    package func write(_ text: String, to fd: Int32) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return }
        let capacity = capacity
        let taken = state.withLock { s -> Bool in
            guard s.pending + bytes.count <= capacity else {
                s.lostLines += 1
                s.lostBytes += bytes.count
                return false
            }
            s.pending += bytes.count
            return true
        }
        guard taken else { return }
        queue.async { [state, stdoutError] in
            // After standard output failed, what was meant for it is not tried again.
            let failedBefore = fd == STDOUT_FILENO && stdoutError.withLock { $0 } != nil
            if !failedBefore, let e = bytes.withUnsafeBytes { writeFully(fd, $0) }, fd == STDOUT_FILENO, e != EPIPE {
                stdoutError.withLock { $0 = e }
            }
            state.withLock { $0.pending -= bytes.count }
        }
    }

    /// Waits until everything queued so far is written (the process is about to end, or to
    /// write on its own), then reports on stderr what the bound made it drop, if anything.
    package func flush() {
        queue.sync {}
        let lost = state.withLock { s -> (Int, Int) in
            defer { (s.lostLines, s.lostBytes) = (0, 0) }
            return (s.lostLines, s.lostBytes)
        }
        if lost.0 > 0 {
            let line = "audiograph: warning: \(lost.0) lines of output (\(lost.1) bytes) were not written: "
                + "their reader fell more than \(Self.megabytes(capacity)) MiB behind\n"
            _ = Array(line.utf8).withUnsafeBytes { writeFully(warnings, $0) }
        }
    }

    /// Why standard output could not be written, in the system's words (a full disk, a closed
    /// descriptor), once everything queued has been tried (after ``flush()``); nil when it took
    /// everything or its reader closed it (`| head`: it wanted no more).
    package var standardOutputFailure: String? {
        stdoutError.withLock { $0 }.map { String(cString: strerror($0)) }
    }

    /// `bytes` in MiB, as the warning gives them (a fraction below one).
    private static func megabytes(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? String(bytes >> 20) : String(format: "%.2f", Double(bytes) / Double(1 << 20))
    }
}
