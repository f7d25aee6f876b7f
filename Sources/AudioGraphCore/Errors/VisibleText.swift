/// Text from outside (a path, a graph's name, words to speak) made safe to print on one line
/// of a terminal or log: control characters and the marks that reorder how text is shown
/// become visible escapes, so a path with a newline cannot split an error in two and one with
/// an escape sequence cannot recolour or clear the terminal.
public enum VisibleText {
    /// `s` with every control character (C0, DEL, C1) and bidirectional override or isolate
    /// written as an escape: `\n`, `\r`, `\t`, otherwise `\u{1B}`. Other text is unchanged.
    public static func escaped(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: needsEscape) else { return s }
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where needsEscape(u): out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// Whether `u` would act on the terminal, or on the order text is shown in, if printed.
    static func needsEscape(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x00...0x1F, 0x7F...0x9F: true                  // C0, DEL, C1 controls
        case 0x202A...0x202E, 0x2066...0x2069: true          // bidirectional embeddings, overrides, isolates
        default: false
        }
    }
}
