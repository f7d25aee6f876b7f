/// What a terminal shows after a stream of output: enough of a VT100 for the CLI's live
/// area (printable text with auto-wrap, CR, LF, cursor up, erase to end of line / screen;
/// colours are dropped). Rows are not limited: nothing scrolls off.
struct TerminalScreen {
    let columns: Int
    private(set) var rows: [[Character]] = [[]]
    private var row = 0, col = 0

    init(columns: Int) { self.columns = columns }

    /// The screen after `text`.
    init(columns: Int, showing text: String) {
        self.init(columns: columns)
        feed(text)
    }

    /// The visible lines, trailing spaces removed.
    var lines: [String] {
        rows.map { String($0).replacingOccurrences(of: "\u{0}", with: " ") }
            .map { String($0.reversed().drop { $0 == " " }.reversed()) }
    }

    mutating func feed(_ text: String) {
        var chars = Array(text)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            i += 1
            switch c {
            case "\r": col = 0
            case "\n", "\r\n":  // a terminal's output turns LF into CR LF (one Character)
                row += 1
                col = 0
                while rows.count <= row { rows.append([]) }
            case "\u{1B}":
                guard i < chars.count, chars[i] == "[" else { continue }
                i += 1
                var params = ""
                while i < chars.count, !chars[i].isLetter { params.append(chars[i]); i += 1 }
                guard i < chars.count else { return }
                let command = chars[i]
                i += 1
                let n = Int(params) ?? 1
                switch command {
                case "A": row = max(0, row - n)
                case "K": if col < rows[row].count { rows[row].removeSubrange(col...) }
                case "J":
                    if col < rows[row].count { rows[row].removeSubrange(col...) }
                    rows.removeSubrange((row + 1)...)
                    if rows.count <= row { rows.append([]) }
                default: break  // colours
                }
            default:
                if col >= columns {  // auto-wrap
                    row += 1
                    col = 0
                    while rows.count <= row { rows.append([]) }
                }
                while rows[row].count < col { rows[row].append(" ") }
                if col < rows[row].count { rows[row][col] = c } else { rows[row].append(c) }
                col += 1
            }
        }
        chars.removeAll()
    }
}
