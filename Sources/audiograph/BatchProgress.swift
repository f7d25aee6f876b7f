import AudioGraphCore
import Foundation

/// What `audiograph batch` reports while it runs: a line per finished input (on stdout; a
/// failure on stderr) and, when stderr is a terminal, one progress bar for the whole job
/// below them on stderr, redrawn in place:
///
///     a.wav: 12.4 s, 3 utterances                            ◄─ one line per input, scrolling
///       [########............]  14/40 files  2 failed  31x real time  0:52 left
///
/// The bar counts the inputs running in part (how far through its audio each one is).
/// Called from the workers and the main thread: one lock.
final class BatchProgress: @unchecked Sendable {
    private let lock = NSLock()
    private let total: Int
    private let tty: Bool
    private let style: TerminalStyle
    private let started = monotonicSeconds()
    private var finished = 0, failed = 0, skipped = 0
    private var audio = 0.0
    /// Per running worker: the fraction of its input done, and the seconds of audio read.
    private var running: [Int: (fraction: Double, seconds: Double)] = [:]
    private var drawn = false

    init(total: Int, skipped: Int) {
        self.total = total
        self.skipped = skipped
        // The bar is redrawn in place: not on a terminal that cannot move its cursor.
        tty = isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
        style = TerminalStyle(isTTY: tty)
    }

    /// Worker `worker` is `position` seconds into an input of `duration` seconds.
    func update(worker: Int, position: Double, duration: Double?) {
        lock.withLock {
            running[worker] = (duration.map { $0 > 0 ? min(1, position / $0) : 0 } ?? 0, position)
        }
    }

    /// An input is over: `line` is printed above the bar (on stderr when it failed).
    func finishedInput(worker: Int, line: String, failed didFail: Bool, audio seconds: Double) {
        lock.withLock {
            running[worker] = nil
            finished += 1
            if didFail { failed += 1 }
            audio += seconds
            write(erase())
            let text = VisibleText.escaped(line) + "\n"
            if didFail { StandardStreams.writeError(text) } else { StandardStreams.writeOutput(text) }
        }
    }

    /// Redraws the bar (a terminal only).
    func draw() {
        lock.withLock { write(erase() + bar()) }
    }

    /// Erases the bar for good.
    func finish() {
        lock.withLock {
            write(erase())
            drawn = false
        }
    }

    /// Seconds of audio transcribed so far (finished inputs and running ones).
    var audioSeconds: Double { lock.withLock { audio + running.values.reduce(0) { $0 + $1.seconds } } }

    private func bar() -> String {
        guard tty else { return "" }
        let work = total - skipped
        let done = Double(finished) + running.values.reduce(0) { $0 + $1.fraction }
        let fraction = work > 0 ? min(1, done / Double(work)) : 1
        let wall = monotonicSeconds() - started
        let seconds = audio + running.values.reduce(0) { $0 + $1.seconds }
        // (text, colour): the ones at the end are left out when the terminal is too narrow.
        var parts = [("\(finished + skipped)/\(total) files", "")]
        if failed > 0 { parts.append(("\(failed) failed", "31")) }
        if wall > 1 && seconds > 0 { parts.append((RealTimeSpeed.text(audio: seconds, wall: wall), "")) }
        if fraction > 0.02 && wall > 2 {
            let left = Int(wall / fraction * (1 - fraction))
            parts.append(("\(left / 60):" + (left % 60 < 10 ? "0" : "") + "\(left % 60) left", ""))
        }
        let width = TerminalStyle.columns(STDERR_FILENO)
        let cells = width >= 80 ? 24 : 10
        let lit = Int(Double(cells) * fraction)
        let head = "  [" + String(repeating: "#", count: lit) + String(repeating: ".", count: cells - lit) + "]  "
        while parts.count > 1 && head.count + parts.map(\.0.count).reduce(0, +) + 2 * (parts.count - 1) >= width {
            parts.removeLast()
        }
        drawn = true
        return head + parts.map { $0.1.isEmpty ? $0.0 : style.paint($0.0, $0.1) }.joined(separator: "  ")
    }

    private func erase() -> String {
        guard drawn else { return "" }
        drawn = false
        return "\r\u{1B}[K"
    }

    private func write(_ s: String) {
        if !s.isEmpty { StandardStreams.writeError(s) }
    }
}
