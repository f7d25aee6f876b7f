import Foundation

/// A one-line progress display on stderr for file input (only when stderr is a terminal):
/// `[#########.........]  12.4 / 35.5 s`.
struct ProgressBar {
    let enabled: Bool
    let duration: Double?

    func update(position: Double) {
        guard enabled else { return }
        var line = "\r"
        if let d = duration, d > 0 {
            let width = 30
            let filled = min(width, Int(Double(width) * position / d))
            line += "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
            line += String(format: "%7.1f / %.1f s", position, d)
        } else {
            line += String(format: "%7.1f s", position)
        }
        FileHandle.standardError.write(Data(line.utf8))
    }

    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
