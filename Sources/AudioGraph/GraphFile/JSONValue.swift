import AudioGraphCore

/// A JSON value that remembers where it stood in its file, so errors can point at it.
struct JSONValue {
    indirect enum Kind {
        case object([Member])
        case array([JSONValue])
        case string(String)
        case number(Double)
        case bool(Bool)
        case null
    }

    /// One `"key": value` pair of an object, in file order.
    struct Member {
        var key: String
        var keyLocation: SourceLocation
        var value: JSONValue
    }

    var kind: Kind
    var location: SourceLocation

    /// Name of the JSON type, for error messages.
    var typeName: String {
        switch kind {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}

/// A strict JSON parser (RFC 8259) that records line and column of every value and
/// rejects duplicate keys. Graph files are small; clarity wins over speed.
struct JSONParser {
    struct Failure: Error {
        var message: String
        var location: SourceLocation
    }

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Parses one JSON document.
    static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var p = JSONParser(bytes)
        if p.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { p.index = 3; p.lineStart = 3 }
        // Saved as UTF-16 (Windows editors' "Unicode"): said so, not "found 'ÿ'".
        if TextBytes.isUTF16(p.bytes) {
            throw p.fail("the file is UTF-16 text: save it as UTF-8")
        }
        p.skipSpace()
        let v = try p.value()
        p.skipSpace()
        if p.index < p.bytes.count { throw p.fail("unexpected text after the JSON value") }
        return v
    }

    private var here: SourceLocation { SourceLocation(line: line, column: index - lineStart + 1) }

    private func fail(_ message: String) -> Failure { Failure(message: message, location: here) }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
            default: return
            }
        }
    }

    private mutating func value() throws(Failure) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of file") }
        let at = here
        switch bytes[index] {
        case UInt8(ascii: "{"): return JSONValue(kind: try object(), location: at)
        case UInt8(ascii: "["): return JSONValue(kind: try array(), location: at)
        case UInt8(ascii: "\""): return JSONValue(kind: .string(try string()), location: at)
        case UInt8(ascii: "t"): try literal("true"); return JSONValue(kind: .bool(true), location: at)
        case UInt8(ascii: "f"): try literal("false"); return JSONValue(kind: .bool(false), location: at)
        case UInt8(ascii: "n"): try literal("null"); return JSONValue(kind: .null, location: at)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONValue(kind: .number(try number()), location: at)
        default:
            throw fail("expected a JSON value, found '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    private mutating func literal(_ word: String) throws(Failure) {
        let w = Array(word.utf8)
        guard bytes.count - index >= w.count, Array(bytes[index..<index + w.count]) == w else {
            throw fail("expected a JSON value")
        }
        index += w.count
    }

    private mutating func object() throws(Failure) -> JSONValue.Kind {
        depth += 1
        defer { depth -= 1 }
        if depth > 64 { throw fail("nested too deeply") }
        index += 1
        var members: [JSONValue.Member] = []
        var seen = Set<String>()
        skipSpace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return .object([]) }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a \"key\"") }
            let keyAt = here
            let key = try string()
            if !seen.insert(key).inserted {
                throw Failure(message: "duplicate key \"\(key)\"", location: keyAt)
            }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':' after key") }
            index += 1
            skipSpace()
            members.append(.init(key: key, keyLocation: keyAt, value: try value()))
            skipSpace()
            guard index < bytes.count else { throw fail("unexpected end of file in an object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw fail("expected ',' or '}'")
        }
    }

    private mutating func array() throws(Failure) -> JSONValue.Kind {
        depth += 1
        defer { depth -= 1 }
        if depth > 64 { throw fail("nested too deeply") }
        index += 1
        var items: [JSONValue] = []
        skipSpace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return .array([]) }
        while true {
            skipSpace()
            items.append(try value())
            skipSpace()
            guard index < bytes.count else { throw fail("unexpected end of file in an array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw fail("expected ',' or ']'")
        }
    }

    private mutating func string() throws(Failure) -> String {
        index += 1
        var out: [UInt8] = []
        while index < bytes.count {
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { throw fail("unterminated string") }
                let e = bytes[index + 1]
                index += 2
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count,
                          let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
                    else { throw fail("bad \\u escape") }
                    index += 4
                    let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    out += Array(String(Character(scalar)).utf8)
                default: throw fail("bad escape in string")
                }
            case 0x00..<0x20:
                throw fail("control character in string (unterminated string?)")
            default:
                out.append(b)
                index += 1
            }
        }
        throw fail("unterminated string")
    }

    private mutating func number() throws(Failure) -> Double {
        let start = index
        while index < bytes.count,
              (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
                || [UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index])
        {
            index += 1
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let n = Double(text), n.isFinite else {
            index = start
            throw fail("bad number \(text)")
        }
        return n
    }
}
