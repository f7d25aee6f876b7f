import Foundation

/// One Wyoming event: a type, a JSON object of data, and an optional binary payload (PCM).
///
/// On the wire (the `wyoming` package's `event.py`): a JSON header line
/// `{"type": ..., "version": ..., "data_length": N, "payload_length": M}` (data may also sit
/// in the header as `"data"`), then N bytes of JSON data, then M bytes of payload.
public struct WyomingEvent: @unchecked Sendable {
    /// The event type (`describe`, `audio-chunk`, `transcript`, ...).
    public var type: String
    /// The data object (JSON values: String, numbers, Bool, arrays, objects, NSNull).
    public var data: [String: Any]
    /// The payload, if any.
    public var payload: Data?

    /// Makes an event.
    public init(_ type: String, _ data: [String: Any] = [:], payload: Data? = nil) {
        self.type = type
        self.data = data
        self.payload = payload
    }

    /// The protocol version written in headers (that of the `wyoming` package the tests use).
    public static let version = "1.10.2"

    /// The bytes on the wire: data in the data block (never in the header line, whose length
    /// the Python reader limits), then the payload.
    public func encoded() -> Data {
        var header: [String: Any] = ["type": type, "version": Self.version]
        var body = Data()
        if !data.isEmpty, let d = try? JSONSerialization.data(withJSONObject: data, options: [.withoutEscapingSlashes]) {
            body = d
            header["data_length"] = d.count
        }
        if let payload, !payload.isEmpty { header["payload_length"] = payload.count }
        var out = (try? JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])) ?? Data()
        out.append(0x0A)
        out.append(body)
        if let payload { out.append(payload) }
        return out
    }

    /// A number in the data (JSON numbers of any kind), or nil.
    public func number(_ key: String) -> Double? {
        (data[key] as? NSNumber)?.doubleValue
    }

    /// A whole number in the data, within ±2^31, or nil (`1e300` is a number, and Swift's
    /// conversion of it to Int stops the process: a client's audio-start ended the server).
    public func whole(_ key: String) -> Int? { JSONField.whole(data[key]) }

    /// A string in the data, or nil.
    public func string(_ key: String) -> String? { data[key] as? String }
}

/// A fault in what a Wyoming client sent: its text and a code for the `error` event.
public struct WyomingFault: Error, Sendable, Equatable {
    /// What was wrong, naming the event or field.
    public var text: String
    /// A short machine-readable code (`bad-header`, `too-large`, ...).
    public var code: String
    /// Makes one.
    public init(_ text: String, code: String) {
        self.text = text
        self.code = code
    }
}
