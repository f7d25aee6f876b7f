import AudioGraphCore
import CCivetweb
import Foundation
import Synchronization

/// The protocol spoken on one WebSocket: text messages (JSON) and binary messages (PCM).
protocol SocketProtocol: AnyObject {
    /// A whole text message; false closes the connection.
    func text(_ message: String) -> Bool
    /// A whole binary message; false closes the connection.
    func binary(_ bytes: UnsafeRawBufferPointer) -> Bool
    /// The connection is gone: cancel what is in flight.
    func closed()
}

/// One WebSocket connection on its civetweb worker thread: messages are put together from
/// their frames (bounded by `--max-message`), the app key is checked at the start, and
/// writes from any thread go out whole, never after the close.
final class WebSocketConnection: @unchecked Sendable {
    enum Kind { case vosk, audiograph }

    private let connection: OpaquePointer
    let route: SocketRoute
    var server: SpeechServer { route.server }
    /// The peer's address, for the log.
    let peer: String
    /// The app id the client authenticated as (with `--keys`).
    private(set) var app: String?
    private(set) var appLimit: Int?
    private var handler: SocketProtocol?
    private var fragments: [UInt8] = []
    private var fragmentOpcode: Int32 = 0
    private var overflow = false
    /// false once closed or a write failed: nothing more is written.
    private let open = Mutex(true)
    /// When the client last sent a frame (monotonic seconds), for the idle limit.
    let lastHeard = Atomic<Double>(monotonicSeconds())

    init(connection: OpaquePointer, route: SocketRoute) {
        self.connection = connection
        self.route = route
        let info = mg_get_request_info(connection)
        peer = info.map { withUnsafeBytes(of: $0.pointee.remote_addr) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) } } ?? "?"
    }

    /// Whether it holds one of the server's connection places (given back when it closes).
    private var counted = false

    /// The handshake is done: take a connection place, check the app key, then serve.
    func opened() {
        let wire: ServerMetrics.Wire = route.kind == .vosk ? .vosk : .audiograph
        guard server.connections.admit() else {
            server.metrics.refused(wire, "connections")
            refuse(code: "busy", message: server.connections.refusal, closeCode: 1013)  // try again later
            return
        }
        counted = true
        server.metrics.opened(wire)
        if let keys = server.configuration.keys {
            let query = Self.query(mg_get_request_info(connection)?.pointee.query_string.map { String(cString: $0) } ?? "")
            var id = query["app"], key = query["key"]
            if id == nil, let auth = header("Authorization"), auth.hasPrefix("Bearer ") {
                let parts = auth.dropFirst(7).split(separator: ":", maxSplits: 1)
                if parts.count == 2 { id = String(parts[0]); key = String(parts[1]) }
            }
            guard let id, let key, let app = keys.check(id: id, key: key) else {
                server.metrics.refused(wire, "key")
                server.write(log: "\(wire.rawValue) \(peer): refused: missing or wrong app key")
                refuse(code: "key", message: "missing or wrong app key: connect with ?app=ID&key=KEY")
                return
            }
            self.app = id
            appLimit = app.maxSessions
        }
        handler = route.kind == .vosk ? VoskProtocol(socket: self) : AppProtocol(socket: self)
    }

    /// Sends an error (in the protocol's shape) and closes.
    func refuse(code: String, message: String, closeCode: UInt16 = 1008) {
        let text = route.kind == .vosk ? JSON.text(["error": message, "code": code])
            : JSON.text(["type": "error", "code": code, "message": message])
        send(text: text)
        close(code: closeCode)
    }

    /// A frame arrived; false closes the connection.
    func received(flags: Int32, bytes: UnsafeRawBufferPointer) -> Bool {
        lastHeard.store(monotonicSeconds(), ordering: .relaxed)
        let opcode = flags & 0xF
        let fin = flags & 0x80 != 0
        switch opcode {
        case 0x8:
            // The client closes: answered with a close frame of its status code (RFC 6455
            // 5.5.1), so its side ends cleanly (1000), not as a dropped connection (1006).
            var payload = bytes.count >= 2 ? [bytes[0], bytes[1]] : []
            _ = write(opcode: UInt32(MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE), &payload)
            open.withLock { $0 = false }
            return false
        case 0x9:  // ping: answered with a pong carrying its payload
            var payload = [UInt8](bytes)
            _ = write(opcode: UInt32(MG_WEBSOCKET_OPCODE_PONG), &payload)
            return true
        case 0xA: return true  // pong
        case 0x1, 0x2:
            fragments.removeAll(keepingCapacity: true)
            fragmentOpcode = opcode
            overflow = false
        case 0x0: break  // continuation
        default: return false
        }
        guard handler != nil else { return false }  // refused at the start
        if fragments.count + bytes.count > server.configuration.maxMessageBytes {
            overflow = true
        } else if !overflow {
            fragments.append(contentsOf: bytes)
        }
        guard fin else { return true }
        if overflow {
            send(text: route.kind == .vosk ? JSON.text(["error": "message larger than \(server.configuration.maxMessageBytes) bytes", "code": "too-large"])
                 : JSON.text(["type": "error", "code": "too-large", "message": "message larger than \(server.configuration.maxMessageBytes) bytes: dropped"]))
            return isOpen
        }
        let keep: Bool
        if fragmentOpcode == 0x1 {
            keep = handler!.text(String(decoding: fragments, as: UTF8.self))
        } else {
            keep = fragments.withUnsafeBytes { handler!.binary($0) }
        }
        return keep && isOpen
    }

    /// civetweb closed the connection (the client left, a timeout, or we asked).
    func closed() {
        open.withLock { $0 = false }
        if counted {
            counted = false
            server.connections.release()
        }
        handler?.closed()
        handler = nil
    }

    var isOpen: Bool { open.withLock { $0 } }

    /// Sends a text message; false if the connection is closed or the write failed.
    @discardableResult
    func send(text: String) -> Bool {
        var bytes = Array(text.utf8)
        return write(opcode: UInt32(MG_WEBSOCKET_OPCODE_TEXT), &bytes)
    }

    /// Sends a binary message.
    @discardableResult
    func send(binary: Data) -> Bool {
        var bytes = [UInt8](binary)
        return write(opcode: UInt32(MG_WEBSOCKET_OPCODE_BINARY), &bytes)
    }

    /// Sends a close frame with `code`; the connection ends when the data handler returns false.
    func close(code: UInt16) {
        var payload: [UInt8] = [UInt8(code >> 8), UInt8(code & 0xFF)]
        _ = write(opcode: UInt32(MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE), &payload)
        open.withLock { $0 = false }
    }

    private func write(opcode: UInt32, _ bytes: inout [UInt8]) -> Bool {
        open.withLock { isOpen in
            guard isOpen else { return false }
            mg_lock_connection(connection)
            let n = bytes.withUnsafeBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(1, p.count)) { mg_websocket_write(connection, Int32(opcode), $0, p.count) }
            }
            mg_unlock_connection(connection)
            if n <= 0 {
                // The client stopped reading (the send timed out) or went away.
                isOpen = false
                server.write(log: "websocket \(peer): dropped: a write failed (the client stopped reading or left)")
            }
            return n > 0
        }
    }

    private func header(_ name: String) -> String? {
        mg_get_header(connection, name).map { String(cString: $0) }
    }

    /// `a=1&b=two` → [a: 1, b: two] (percent-decoded).
    static func query(_ s: String) -> [String: String] {
        var out: [String: String] = [:]
        for pair in s.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0) }
            if kv.count == 2 { out[kv[0]] = kv[1] }
        }
        return out
    }
}

/// JSON for protocol messages.
enum JSON {
    static func text(_ object: [String: Any]) -> String {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
