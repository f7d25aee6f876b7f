/// Text cut into the pieces flite is given one at a time: sentences (ending at `.`, `!` or
/// `?` before a space or the end), and a sentence longer than ``longest`` characters cut after
/// its last space before that. A piece with no letter or digit has nothing to say and is left
/// out. Speaking a piece at a time holds one piece's audio in memory, lets other callers take
/// flite between two pieces, and lets a caller stop after any piece.
package enum SpokenPieces {
    /// The longest piece, in characters (about 25 s of speech).
    package static let longest = 400

    /// The pieces of `text` (flite's speakable text: printable ASCII, single spaces), in order,
    /// without the spaces around them.
    package static func of(_ text: String, longest: Int = longest) -> [String] {
        let b = Array(text.utf8)
        let space = UInt8(ascii: " ")
        var pieces: [String] = []
        var start = 0, lastSpace = -1
        func piece(to end: Int) {
            let p = b[start..<end]
            if p.contains(where: { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }) {
                let words = p.drop(while: { $0 == space }).reversed().drop(while: { $0 == space }).reversed()
                pieces.append(String(decoding: words, as: UTF8.self))
            }
            start = end
            lastSpace = -1
        }
        for i in b.indices {
            if b[i] == space && i > start { lastSpace = i }
            if [UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "?")].contains(b[i]) && (i + 1 == b.count || b[i + 1] == space) {
                piece(to: i + 1)
            } else if i + 1 - start >= longest {
                piece(to: lastSpace > start ? lastSpace + 1 : i + 1)
            }
        }
        if start < b.count { piece(to: b.count) }
        return pieces
    }
}
