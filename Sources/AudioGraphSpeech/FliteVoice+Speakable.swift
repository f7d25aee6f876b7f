import Foundation

/// What flite is given to say. Its lexicon and letter-to-sound rules are English and ASCII,
/// while the texts it gets (an app's answers, a client's `speak`) are typed on phones and
/// written by programs: curly apostrophes ("it’s"), accented names ("Zürich"), dashes,
/// degrees and currency signs. Each of those is turned into the ASCII flite says right;
/// anything else outside printable ASCII becomes a space, so it is skipped, not misread.
extension FliteVoice {
    /// The longest run of characters without a space flite is given. flite's work on a token
    /// recurses once for each character and takes time in the square of its length: 2,000
    /// characters (`-1-1…`) overflowed a civetweb handler's stack and ended a server, 30,000
    /// held flite (one lock for the process) for more than ten minutes. No word is this long;
    /// a longer run (a URL, a number, noise) is cut into runs of this length.
    static let longestToken = 64

    /// Rewrites that need the characters around them, in order: a dash between numbers is a
    /// range, any other a pause; a currency sign before a number is said after it; a degree
    /// sign names its scale.
    private static let rewrites: [(NSRegularExpression, String)] = [
        (#"(\d)\s?[\x{2013}\x{2014}]\s?(\d)"#, "$1 to $2"),
        (#"\s*[\x{2013}\x{2014}]\s*"#, ", "),
        (#"\x{20AC}\s?(\d[\d,.]*)"#, "$1 euros"),
        (#"\x{00A3}\s?(\d[\d,.]*)"#, "$1 pounds"),
        (#"\x{00B0}\s?C\b"#, " degrees Celsius"),
        (#"\x{00B0}\s?F\b"#, " degrees Fahrenheit"),
    ].map { (try! NSRegularExpression(pattern: $0.0), $0.1) }

    /// Characters said as ASCII wherever they are (letters without a decomposition, quotes,
    /// dashes, spaces, signs). Letters with accents lose them (`speakable`).
    private static let spokenAs: [Unicode.Scalar: String] = [
        "\u{2018}": "'", "\u{2019}": "'", "\u{02BC}": "'", "\u{2032}": "'",
        "\u{201C}": "\"", "\u{201D}": "\"", "\u{201E}": "\"", "\u{00AB}": "\"", "\u{00BB}": "\"",
        "\u{2026}": "...",
        "\u{00A0}": " ", "\u{2009}": " ", "\u{202F}": " ",
        "\u{00DF}": "ss", "\u{00E6}": "ae", "\u{00C6}": "Ae", "\u{0153}": "oe", "\u{0152}": "Oe",
        "\u{00F8}": "o", "\u{00D8}": "O", "\u{0142}": "l", "\u{0141}": "L", "\u{0111}": "d", "\u{0110}": "D",
        "\u{00B0}": " degrees ", "\u{00D7}": " times ", "\u{20AC}": " euros ", "\u{00A3}": " pounds ",
    ]

    /// `text` as flite should be given it: the rewrites above, accents removed, anything else
    /// outside printable ASCII a space; words single-spaced and cut at ``longestToken``.
    static func speakable(_ text: String) -> String {
        var rewritten = text
        for (pattern, template) in rewrites {
            rewritten = pattern.stringByReplacingMatches(in: rewritten, range: NSRange(rewritten.startIndex..., in: rewritten),
                                                         withTemplate: template)
        }
        var ascii = String.UnicodeScalarView()
        for s in rewritten.unicodeScalars {
            if let said = spokenAs[s] {
                ascii.append(contentsOf: said.unicodeScalars)
            } else if s.value >= 0x20 && s.value < 0x7F {
                ascii.append(s)
            } else {
                // A letter with accents: its base letter (é is e and a combining acute).
                let base = String(s).decomposedStringWithCanonicalMapping.unicodeScalars.first!
                ascii.append(base.value >= 0x20 && base.value < 0x7F ? base : " ")
            }
        }
        return Array(String(ascii).utf8).split(separator: UInt8(ascii: " ")).flatMap { word in
            stride(from: word.startIndex, to: word.endIndex, by: longestToken).map { start in
                String(decoding: word[start..<min(start + longestToken, word.endIndex)], as: UTF8.self)
            }
        }.joined(separator: " ")
    }
}
