import CCivetweb
import Foundation
import Synchronization

/// One WebSocket to the server's `/audiograph` protocol, on civetweb's client (the library
/// the server uses). Foundation's `URLSessionWebSocketTask` was the first choice, measured
/// first: on Linux it goes through the system libcurl, and Debian 12's (7.88) is built
/// without WebSocket support ("WebSockets not supported by libcurl", every send fails).
///
/// civetweb calls back on a thread of its own with each frame; messages are put together and
/// handed to ``receive()`` in order. Writes are masked frames, whole, under civetweb's lock.
final class SocketLink: @unchecked Sendable {
    enum Message: @unchecked Sendable {
        case json([String: Any])
        case data(Data)
    }

    private var connection: OpaquePointer?
    let endpoint: ServerEndpoint
    /// Messages civetweb's thread has put together and nobody has taken yet, and the one
    /// receiver waiting for the next (a lock, not an AsyncStream iterator kept in this class:
    /// that iterator, advanced from more than one task, crashed).
    private struct Inbox {
        var messages = Backlog<Result<Message, RemoteError>>()
        var waiting: CheckedContinuation<Result<Message, RemoteError>, Never>?
        var finished = false
    }
    private let inbox = Mutex(Inbox())
    private var fragments: [UInt8] = []
    /// The largest message taken from a server, whole or in fragments: its events are small
    /// and its speech comes a frame at a time. Past it the connection is closed with a
    /// `protocol` error, instead of the client growing for as long as a server sends.
    static let largestMessage = 16 << 20
    private var fragmentOpcode: Int32 = 0
    private let closed = Mutex(false)
    /// Signalled once civetweb's client thread has called the close handler (it is done with
    /// the connection); only then may the connection be freed.
    private let ended = DispatchSemaphore(value: 0)
    private let freed = Mutex(false)

    private init(endpoint: ServerEndpoint) {
        self.endpoint = endpoint
    }

    /// Opens a link, trying `endpoint.attempts` times with backoff (0.25 s, 0.5 s, 1 s, …)
    /// while the server refuses; a server that does not answer in `endpoint.timeout` is not
    /// tried again.
    static func open(_ endpoint: ServerEndpoint) async throws -> SocketLink {
        var delay = 0.25
        var last = RemoteError(code: "connection", message: "cannot connect to \(endpoint.url)")
        for attempt in 1...endpoint.attempts {
            let link = SocketLink(endpoint: endpoint)
            do {
                try await link.connect()
                return link
            } catch let e as RemoteError {
                last = e
                // Trying again is for a server that refused (restarting); one that took the
                // connection and did not answer in time has had its time.
                if e.code == "timeout" { break }
                if attempt < endpoint.attempts {
                    try await Task.sleep(for: .seconds(delay))
                    delay *= 2
                }
            }
        }
        throw last
    }

    private func connect() async throws {
        let url = endpoint.socketURL
        guard let host = url.host, ["ws", "wss"].contains(url.scheme ?? "") else {
            throw RemoteError(code: "connection", message: "\(endpoint.url): expected ws://HOST:PORT or wss://HOST:PORT")
        }
        let tls = url.scheme == "wss"
        let port = url.port ?? (tls ? 443 : 80)
        let target = (url.path.isEmpty ? "/" : url.path) + (url.query.map { "?" + $0 } ?? "")
        // Retained for civetweb before it can call back: a server that refuses at once closes
        // the connection, and the close handler (which gives this back) runs, before
        // mg_connect_websocket_client has returned.
        let me = UInt(bitPattern: Unmanaged.passRetained(self).toOpaque())
        let timeout = endpoint.timeout
        // civetweb's connect blocks (handshake included): off the cooperative pool, bounded.
        // A connection made after the deadline is closed; one that failed gives back the retain.
        let made: Result<UInt, RemoteError> = try await withTimeout(timeout, late: { late in
            guard case .success(.success(let c)) = late else {
                Unmanaged<SocketLink>.fromOpaque(UnsafeRawPointer(bitPattern: me)!).release()
                return
            }
            let link = Unmanaged<SocketLink>.fromOpaque(UnsafeRawPointer(bitPattern: me)!).takeUnretainedValue()
            link.connection = OpaquePointer(bitPattern: c)
            link.closeLater()
        }) {
            await withCheckedContinuation { c in
                Thread.detachNewThread {
                    _ = SocketLink.libraryReady
                    var error = [CChar](repeating: 0, count: 256)
                    let conn = mg_connect_websocket_client(host, Int32(port), tls ? 1 : 0, &error, error.count, target, nil, { conn, flags, data, length, user in
                        let link = Unmanaged<SocketLink>.fromOpaque(user!).takeUnretainedValue()
                        return link.frame(conn, flags: flags, bytes: UnsafeRawBufferPointer(start: data, count: length)) ? 1 : 0
                    }, { _, user in
                        Unmanaged<SocketLink>.fromOpaque(user!).takeUnretainedValue().lost()
                    }, UnsafeMutableRawPointer(bitPattern: me))
                    if let conn {
                        c.resume(returning: .success(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(conn)))))
                    } else {
                        let why = String(decoding: error.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                        c.resume(returning: .failure(RemoteError(code: "connection", message: "cannot connect to \(host):\(port): \(why.isEmpty ? "refused" : why)")))
                    }
                }
            }
        }
        switch made {
        case .success(let c):
            connection = OpaquePointer(bitPattern: c)
            NoDelay.apply(toPeerPort: port)
        case .failure(let e):
            Unmanaged.passUnretained(self).release()  // no connection: civetweb will not call back
            throw e
        }
    }

    /// Hands `item` to the waiting receiver, or keeps it for the next.
    private func post(_ item: Result<Message, RemoteError>, finish: Bool = false) {
        let waiter = inbox.withLock { box -> CheckedContinuation<Result<Message, RemoteError>, Never>? in
            if finish { box.finished = true }
            if let w = box.waiting {
                box.waiting = nil
                return w
            }
            box.messages.append(item)
            return nil
        }
        waiter?.resume(returning: item)
    }

    /// civetweb's frames (its client thread): put messages together, post them.
    private func frame(_ connection: OpaquePointer?, flags: Int32, bytes: UnsafeRawBufferPointer) -> Bool {
        let opcode = flags & 0xF
        switch opcode {
        case 0x8:
            // The server closes: answered with a close frame of its status code (RFC 6455 5.5.1).
            if let connection {
                let code = bytes.count >= 2 ? Array(bytes.prefix(2)) : []
                _ = code.withUnsafeBytes {
                    mg_websocket_client_write(connection, Int32(MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE),
                                              $0.baseAddress?.assumingMemoryBound(to: CChar.self), code.count)
                }
            }
            return false
        case 0x9:
            // A ping is answered with its payload (RFC 6455 5.5.2); servers and proxies that
            // ping close a connection that does not. (civetweb's own connection: a ping may
            // come before the connect has returned it.)
            if let connection {
                _ = mg_websocket_client_write(connection, Int32(MG_WEBSOCKET_OPCODE_PONG), bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
            }
            return true
        case 0xA: return true
        case 0x1, 0x2:
            fragments.removeAll(keepingCapacity: true)
            fragmentOpcode = opcode
        default: break
        }
        guard fragments.count + bytes.count <= Self.largestMessage else {
            fragments.removeAll()
            post(.failure(RemoteError(code: "protocol", message: "the server sent a message of more than \(Self.largestMessage >> 20) MB")))
            return false  // civetweb closes the connection
        }
        fragments.append(contentsOf: bytes)
        guard flags & 0x80 != 0 else { return true }
        if fragmentOpcode == 0x1 {
            switch PeerJSON.object(fragments) {
            case .success(let o): post(.success(.json(o)))
            case .failure(let failure):
                post(.failure(RemoteError(code: "protocol", message: "the server sent a message that is \(failure)")))
            }
        } else {
            post(.success(.data(Data(fragments))))
        }
        return true
    }

    /// The connection closed (either side).
    private func lost() {
        // civetweb may call the close handler more than once (the peer's close, then
        // mg_close_connection): the retain taken at connect is given back once only.
        guard !closed.withLock({ let was = $0; $0 = true; return was }) else { return }
        post(.failure(RemoteError(code: "connection-lost", message: "the connection to the server dropped")), finish: true)
        ended.signal()
        Unmanaged.passUnretained(self).release()  // civetweb will not call back any more
    }

    func send(_ object: [String: Any]) async throws {
        let data = try JSONSerialization.data(withJSONObject: object)
        try write(opcode: Int32(MG_WEBSOCKET_OPCODE_TEXT), data)
    }

    func send(_ data: Data) async throws { try sendNow(data) }

    /// Sends the message that opens an exchange (`start`, `speak`). A server that refuses at
    /// once (a wrong key, draining) says why and closes: its reason may have come before the
    /// send found the connection closed, and is what is thrown then.
    func sendOpening(_ object: [String: Any]) async throws {
        do {
            try await send(object)
        } catch {
            if case .json(let m)? = try? await receive(), let refusal = RemoteError(serverMessage: m) { throw refusal }
            throw error
        }
    }

    /// A binary frame, written before returning (civetweb's client write is synchronous).
    func sendNow(_ data: Data) throws { try write(opcode: Int32(MG_WEBSOCKET_OPCODE_BINARY), data) }

    private func write(opcode: Int32, _ data: Data) throws {
        guard let connection, !closed.withLock({ $0 }) else {
            // Why it closed, when that is known (a message past the largest, say), before
            // that it did.
            let why = inbox.withLock { box in
                box.messages.waiting.lazy.compactMap { if case .failure(let e) = $0, e.code != "connection-lost" { e } else { nil } }.first
            }
            throw why ?? RemoteError(code: "connection-lost", message: "the connection to the server dropped")
        }
        let n = data.withUnsafeBytes { mg_websocket_client_write(connection, opcode, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count) }
        if n <= 0 { throw RemoteError(code: "connection-lost", message: "the connection to the server dropped (a write failed)") }
    }

    /// The next message, in order; throws `connection-lost` when the connection drops.
    func receive() async throws -> Message {
        let lostError = RemoteError(code: "connection-lost", message: "the connection to the server dropped")
        let next: Result<Message, RemoteError> = await withCheckedContinuation { c in
            let ready = inbox.withLock { box -> Result<Message, RemoteError>? in
                if !box.messages.isEmpty { return box.messages.takeFirst() }
                if box.finished { return .failure(lostError) }
                box.waiting = c
                return nil
            }
            if let ready { c.resume(returning: ready) }
        }
        return try next.get()
    }

    /// Closes the connection: a close frame if it is still open, then, once civetweb's client
    /// thread has finished with it (its close handler ran, or 2 s), frees it. Freeing it while
    /// that thread still ran crashed a process now and then (a refused key, closed at once).
    func close() {
        guard let connection, !freed.withLock({ let was = $0; $0 = true; return was }) else { return }
        if !closed.withLock({ $0 }) {
            var code: [UInt8] = [0x03, 0xE8]  // 1000, normal closure
            _ = code.withUnsafeMutableBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: 2) {
                    mg_websocket_client_write(connection, Int32(MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE), $0, 2)
                }
            }
        }
        if ended.wait(timeout: .now() + 2) == .success { ended.signal() }
        mg_close_connection(connection)
    }

    /// ``close()`` on a thread of its own, for a caller that is giving up: a server that has
    /// gone quiet would hold it for the close handshake's wait.
    func closeLater() {
        Thread.detachNewThread { self.close() }
    }

    /// civetweb's library state, initialised once (with TLS for wss://).
    static let libraryReady: Bool = {
        mg_init_library(2)
        return true
    }()
}
