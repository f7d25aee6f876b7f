import Foundation

/// A JSON object that came from the other end of a connection: a client's message to the
/// server, or a server's reply to the client.
///
/// Foundation's parser recurses once for each level of nesting and accepts up to 512
/// levels; building the result recurses again. civetweb runs its handlers on threads with
/// small stacks, so a message of a few hundred `{"a":` overflowed the stack there and ended
/// the whole server. No message of these protocols nests more than a few levels, so anything
/// deeper than ``maxDepth`` is refused by a scan before Foundation sees it.
package enum PeerJSON {
    /// The deepest nesting of objects and arrays parsed.
    package static let maxDepth = 64

    /// Why a message is not taken.
    package enum Failure: Error, CustomStringConvertible {
        /// Not JSON, with the parser's reason ("Invalid value around character 1.", "Number
        /// 1e400 is not representable in Swift.").
        case notJSON(String)
        /// JSON, but not an object (an array, a string, a number).
        case notAnObject
        case tooDeep

        package var description: String {
            switch self {
            case .notJSON(let why): "not JSON (\(why))"
            case .notAnObject: "not a JSON object"
            case .tooDeep: "nested deeper than \(PeerJSON.maxDepth) levels"
            }
        }
    }

    /// The object `bytes` hold (UTF-8 JSON text).
    package static func object<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Result<[String: Any], Failure> {
        guard nesting(of: bytes) <= maxDepth else { return .failure(.tooDeep) }
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
        } catch {
            let why = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            return .failure(.notJSON(why?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unreadable"))
        }
        guard let object = value as? [String: Any] else { return .failure(.notAnObject) }
        return .success(object)
    }

    /// The deepest nesting of `[` and `{` outside strings, stopping once past ``maxDepth``.
    /// Not a validation: brackets that do not match are left for the parser to refuse.
    static func nesting<Bytes: Collection<UInt8>>(of bytes: Bytes) -> Int {
        var depth = 0, deepest = 0
        var inString = false, escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > deepest {
                    deepest = depth
                    if deepest > maxDepth { return deepest }
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }
}
