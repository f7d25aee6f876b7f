import AudioGraphClient
import Foundation

/// Reads Wyoming events out of bytes as they arrive (any cut), bounded: a header line of at
/// most 64 KiB (the Python reader's limit), a data block and a payload of at most `limit`
/// bytes each. A malformed event is reported and skipped where its end is known, so the
/// connection goes on: a header that is not JSON (to its newline), data that is not a JSON
/// object (its announced length), a block past the limit (its bytes are read and dropped).
/// Pure and single-threaded; fuzzed by `Tools/fuzz` (target `wyoming`).
public struct WyomingParser {
    /// What ``next()`` gives.
    public enum Item {
        /// A whole event.
        case event(WyomingEvent)
        /// A fault; the parser has skipped past it.
        case fault(WyomingFault)
    }

    private enum Stage {
        case header
        /// Header parsed: waiting for `dataLength` then `payloadLength` bytes.
        case body(type: String, data: [String: Any], dataLength: Int, payloadLength: Int)
        /// Dropping `count` bytes of an oversized block, then the fault is reported.
        case skipping(count: Int, fault: WyomingFault)
        /// Dropping up to the next newline (an oversized header line).
        case skippingLine
    }

    /// Longest header line.
    public static let maxHeaderLine = 64 * 1024
    /// Longest data block or payload.
    public let limit: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var stage = Stage.header

    /// A parser allowing blocks of up to `limit` bytes.
    public init(limit: Int = 1 << 20) { self.limit = limit }

    /// Bytes waiting (not yet part of a whole event).
    public var pending: Int { buffer.count - start }

    /// Adds bytes received.
    public mutating func feed<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next event or fault, or nil when more bytes are needed.
    public mutating func next() -> Item? {
        while true {
            switch stage {
            case .skippingLine:
                if let nl = buffer[start...].firstIndex(of: 0x0A) {
                    start = nl + 1
                    stage = .header
                    return .fault(WyomingFault("header line longer than \(Self.maxHeaderLine) bytes", code: "too-large"))
                }
                start = buffer.count
                return nil
            case .skipping(let count, let fault):
                let n = min(count, buffer.count - start)
                start += n
                if n < count {
                    stage = .skipping(count: count - n, fault: fault)
                    return nil
                }
                stage = .header
                return .fault(fault)
            case .header:
                guard let nl = buffer[start...].firstIndex(of: 0x0A) else {
                    if buffer.count - start > Self.maxHeaderLine { stage = .skippingLine; continue }
                    return nil
                }
                let line = buffer[start..<nl]
                start = nl + 1
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }  // blank line
                if line.count > Self.maxHeaderLine {
                    return .fault(WyomingFault("header line longer than \(Self.maxHeaderLine) bytes", code: "too-large"))
                }
                let header: [String: Any]
                switch PeerJSON.object(line) {
                case .success(let object): header = object
                case .failure(let failure): return .fault(WyomingFault("header line is \(failure)", code: "bad-header"))
                }
                guard let type = header["type"] as? String, !type.isEmpty else {
                    return .fault(WyomingFault("header has no \"type\" string", code: "bad-header"))
                }
                let inline = header["data"]
                if inline != nil && !(inline is [String: Any]) && !(inline is NSNull) {
                    return .fault(WyomingFault("\(type): \"data\" is not an object", code: "bad-header"))
                }
                guard let dataLength = Self.length(header["data_length"]), let payloadLength = Self.length(header["payload_length"]) else {
                    return .fault(WyomingFault("\(type): data_length and payload_length must be whole numbers from 0", code: "bad-header"))
                }
                if dataLength > limit || payloadLength > limit {
                    stage = .skipping(count: dataLength + payloadLength,
                                      fault: WyomingFault("\(type): block of \(max(dataLength, payloadLength)) bytes, more than the \(limit) allowed", code: "too-large"))
                    continue
                }
                stage = .body(type: type, data: inline as? [String: Any] ?? [:], dataLength: dataLength, payloadLength: payloadLength)
            case .body(let type, var data, let dataLength, let payloadLength):
                guard buffer.count - start >= dataLength + payloadLength else { return nil }
                let dataBytes = buffer[start..<(start + dataLength)]
                let payloadBytes = buffer[(start + dataLength)..<(start + dataLength + payloadLength)]
                start += dataLength + payloadLength
                stage = .header
                if dataLength > 0 {
                    let extra: [String: Any]
                    switch PeerJSON.object(dataBytes) {
                    case .success(let object): extra = object
                    case .failure(let failure): return .fault(WyomingFault("\(type): the data block is \(failure)", code: "bad-data"))
                    }
                    data.merge(extra) { _, new in new }
                }
                return .event(WyomingEvent(type, data, payload: payloadLength > 0 ? Data(payloadBytes) : nil))
            }
        }
    }

    /// A length field: absent or null is 0; a whole number from 0; else nil.
    private static func length(_ value: Any?) -> Int? {
        guard let value, !(value is NSNull) else { return 0 }
        guard let n = JSONField.number(value) else { return nil }
        let d = n.doubleValue
        guard d >= 0, d <= Double(Int32.max), d == d.rounded() else { return nil }
        return Int(d)
    }
}
