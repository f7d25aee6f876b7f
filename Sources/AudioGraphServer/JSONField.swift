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

    /// A JSON number that is a whole number within ±2^31, or nil (`16000.5` is no rate, and
    /// `intValue` would take it as 16000).
    static func whole(_ value: Any?) -> Int? {
        guard let d = number(value)?.doubleValue, d == d.rounded(), abs(d) < 0x1p31 else { return nil }
        return Int(d)
    }

    /// A JSON `true` or `false`, not a number.
    static func boolean(_ value: Any?) -> Bool? {
        guard let n = value as? NSNumber, type(of: n) == booleanType else { return nil }
        return n.boolValue
    }

    /// The class JSONSerialization gives `true` and `false` as.
    private static let booleanType = type(of: NSNumber(value: true))
}
