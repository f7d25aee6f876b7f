import Foundation

/// Whether and how the CLI decorates a terminal: colour only on a terminal, never with
/// `NO_COLOR` set (no-color.org) or `TERM=dumb`.
struct TerminalStyle: Sendable {
    let colour: Bool

    init(isTTY: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) {
        colour = isTTY && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// `text` in SGR `code` (e.g. "2" dim, "36" cyan), or plain.
    func paint(_ text: String, _ code: String) -> String {
        colour && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// Columns of the terminal on `fd` (80 when it cannot tell).
    static func columns(_ fd: Int32 = STDOUT_FILENO) -> Int {
        var size = winsize()
        if ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 80
    }
}
