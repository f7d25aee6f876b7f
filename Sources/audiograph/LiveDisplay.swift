import AudioGraph
import Foundation

/// The bottom of the terminal while a graph runs (only when stdout is a terminal, never with
/// `--json`), redrawn in place:
///
///     [1] go forward ten meters  (confidence 0.93)        ◄─ lines printed above it scroll up
///       listening   12.4 s   ▕██████░░░░░░▏-23 dB       ◄─ status: state, time or progress, level
///       … find a japanese restaurants ne                 ◄─ the partial result, wrapped to the
///       arby                                                width; replaced by its final
///
/// Every other line (events, finals, warnings on stderr) is printed above it: the area is
/// erased, the line written, the area drawn again, so nothing overwrites anything. Called
/// from the delivery thread (events, level) and the main thread (time): one lock, under which
/// the text is queued on ``OutputQueue`` (in order; the terminal is written on its thread).
final class LiveDisplay: @unchecked Sendable {
    private let lock = NSLock()
    private let output: OutputQueue
    private let style: TerminalStyle
    private var state = "listening"
    private var position = 0.0
    private var duration: Double?
    private var level: Double?
    private var partial = ""
    /// Lines the area takes on screen now (0: not drawn).
    private var drawn = 0
    private var finished = false

    init(style: TerminalStyle, output: OutputQueue) {
        self.style = style
        self.output = output
    }

    /// Writes `line` above the live area (to stderr when `error`: the same terminal).
    func printAbove(_ line: String, error: Bool = false) {
        lock.lock(); defer { lock.unlock() }
        write(erase())
        if error {
            output.write(line + "\n", to: STDERR_FILENO)
        } else {
            write(line + "\n")
        }
        write(draw())
    }

    /// The hypothesis of the utterance in progress; nil or empty clears it.
    func setPartial(_ text: String?) { update { $0.partial = text ?? "" } }

    /// What the graph is doing ("listening", an assistant's state).
    func setState(_ s: String) { update { $0.state = s } }

    /// Elapsed time, or progress through a file.
    func setTime(position: Double, duration: Double?) {
        update {
            $0.position = position
            $0.duration = duration
        }
    }

    /// Elapsed time, or a progress bar `cells` wide and the position in the file.
    private func timeText(cells: Int) -> String {
        guard let d = duration, d > 0 else { return String(format: "%.1f s", position) }
        let filled = max(0, min(cells, Int(Double(cells) * position / d)))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: cells - filled) + "] "
            + String(format: "%.1f / %.1f s", position, d)
    }

    /// The input's level over the last tenth of a second, dBFS.
    func setLevel(_ db: Double) { update { $0.level = db } }

    /// Erases the area for good (the run is over).
    func finish() {
        lock.lock(); defer { lock.unlock() }
        write(erase())
        finished = true
    }

    private func update(_ change: (LiveDisplay) -> Void) {
        lock.lock(); defer { lock.unlock() }
        guard !finished else { return }
        change(self)
        write(erase() + draw())
    }

    private func write(_ s: String) {
        output.write(s, to: STDOUT_FILENO)
    }

    /// Back to the area's first line and clear to the end of the screen.
    private func erase() -> String {
        defer { drawn = 0 }
        guard drawn > 0 else { return "" }
        return "\r" + (drawn > 1 ? "\u{1B}[\(drawn - 1)A" : "") + "\u{1B}[J"
    }

    /// The area, the cursor left at the end of its last line (no newline: nothing scrolls).
    private func draw() -> String {
        guard !finished else { return "" }
        let width = max(20, TerminalStyle.columns())
        // Narrow terminals get a shorter progress bar and level meter, then none.
        var status = "", plain = ""
        for (progressCells, meterCells) in [(20, 12), (10, 6), (5, 0)] {
            let time = timeText(cells: progressCells)
            status = "  " + style.paint(state, "36") + "   " + time
            plain = "  " + state + "   " + time
            if let level {
                let db = max(-60, min(0, level))
                let lit = Int(((db + 60) / 60 * Double(meterCells)).rounded())
                let bar = String(repeating: "█", count: lit) + String(repeating: "░", count: meterCells - lit)
                let colour = db >= -1 ? "31" : db >= -12 ? "33" : "32"  // clipping red, loud yellow
                let meter = meterCells > 0 ? "▕" + style.paint(bar, colour) + "▏" : ""
                status += "   " + meter + String(format: "%3.0f dB", level)
                plain += "   " + (meterCells > 0 ? "▕" + bar + "▏" : "") + String(format: "%3.0f dB", level)
            }
            if plain.count < width { break }
        }
        if plain.count >= width { status = String(plain.prefix(width - 1)) }  // no colour when cut
        var lines = [status]
        if !partial.isEmpty {
            // Wrapped at the width minus the indent, so no line reaches the last column (a
            // terminal's pending wrap would make the line count uncertain).
            let room = width - 5
            var rest = Substring("… " + partial)
            while !rest.isEmpty {
                var piece = rest.prefix(room)
                if piece.count == room, rest.count > room, let space = piece.lastIndex(of: " "), space > piece.startIndex {
                    piece = rest[rest.startIndex..<space]
                }
                lines.append("  " + style.paint(String(piece), "2"))
                rest = rest[piece.endIndex...].drop { $0 == " " }
            }
        }
        drawn = lines.count
        return lines.joined(separator: "\n")
    }
}
