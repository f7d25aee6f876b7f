/// The bytes of a text file a user or operator writes (a graph, a vocabulary, app keys):
/// UTF-8, with or without a byte order mark (Windows editors write one). UTF-16, what those
/// editors call "Unicode", is named in the error, so it says how to save the file instead.
package enum TextBytes {
    /// Whether `bytes` open with a UTF-16 byte order mark (either byte order).
    package static func isUTF16(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF])
    }

    /// The text of `bytes` past a UTF-8 byte order mark, or nil when they are not UTF-8.
    package static func utf8(_ bytes: [UInt8]) -> String? {
        String(validating: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...], as: UTF8.self)
    }

    /// Why `bytes` are refused: "not UTF-8 text", and the way out when they are UTF-16.
    package static func notUTF8(_ bytes: [UInt8]) -> String {
        "not UTF-8 text" + (isUTF16(bytes) ? " (UTF-16: save it as UTF-8)" : "")
    }
}
