import Foundation

/// Typed fields of a decoded JSON message (JSONSerialization), for the protocols that check
/// what a client sent. JSONSerialization gives numbers and `true`/`false` alike as NSNumber,
/// so `as? NSNumber` takes `true` as 1 and `as? Bool` takes 1 and 0; these tell them apart.
enum JSONField {
    /// A JSON number, not `true` or `false`.
    static func number(_ value: Any?) -> NSNumber? {
        guard let n = value as? NSNumber, type(of: n) != booleanType else { return nil }
        return n
    }

    /// A JSON `true` or `false`, not a number.
    static func boolean(_ value: Any?) -> Bool? {
        guard let n = value as? NSNumber, type(of: n) == booleanType else { return nil }
        return n.boolValue
    }

    /// The class JSONSerialization gives `true` and `false` as.
    private static let booleanType = type(of: NSNumber(value: true))
}
