import CLibWebsockets
import Foundation
import Synchronization

/// One WebSocket to the server's `/audiograph` protocol, on libwebsockets' client.
///
/// libwebsockets, not civetweb (the server's library), because a client that sends an app key
/// must know whom it sends it to: for `wss://` it verifies the server's certificate chain
/// (against the system's certificate authorities, or the endpoint's own) and that the
/// certificate names the host, as a browser does. civetweb 1.15's client checked neither: any
/// certificate was taken. (Foundation's `URLSessionWebSocketTask` goes through Debian 12's
/// libcurl, built without WebSocket support.)
///
/// Each link has its own libwebsockets context, served by a thread of its own: frames are
/// put together there and handed to ``receive()`` in order; writes from other threads wait in
/// an outbox, are written there when the socket can take them, and the writer waits for that.
final class SocketLink: @unchecked Sendable {
    enum Message: @unchecked Sendable {
        case json([String: Any])
        case data(Data)
    }

    let endpoint: ServerEndpoint
    /// Messages the service thread has put together and nobody has taken yet, and the one
    /// receiver waiting for the next (a lock, not an AsyncStream iterator kept in this class:
    /// that iterator, advanced from more than one task, crashed).
    struct Inbox {
        var messages = Backlog<Result<Message, RemoteError>>()
        var waiting: CheckedContinuation<Result<Message, RemoteError>, Never>?
        var finished = false
    }
    let inbox = Mutex(Inbox())

    /// A frame to write, and its writer waiting for it to be written.
    final class Frame: @unchecked Sendable {
        let protocolFlag: lws_write_protocol
        /// ag_lws_pre() bytes of headroom, then the payload.
        var bytes: [UInt8]
        var failure: RemoteError?
        let written = DispatchSemaphore(value: 0)
        init(_ flag: lws_write_protocol, _ payload: Data) {
            protocolFlag = flag
            bytes = [UInt8](repeating: 0, count: ag_lws_pre())
            bytes.append(contentsOf: payload)
        }
    }
    /// What other threads share with the service thread. Its context is set while the thread
    /// runs; the thread clears it (under this lock) before destroying the context, so waking
    /// the thread never touches a destroyed one.
    struct Shared {
        var context: Context?
        var frames = Backlog<Frame>()
        var connected = false
        /// Close when the outbox is written (a close frame, then the socket).
        var closing = false
        /// Stop at once: the socket is closed with the context.
        var abandon = false
        var ended = false
        var connectWaiter: CheckedContinuation<Result<Void, RemoteError>, Never>?
    }
    let shared = Mutex(Shared())
    /// A libwebsockets context, handed to the thread that serves it.
    struct Context: @unchecked Sendable { let pointer: OpaquePointer }
    /// Signalled once the service thread has destroyed its context.
    let threadEnded = DispatchSemaphore(value: 0)

    // The service thread's own.
    var wsi: OpaquePointer?
    var stopped = false
    var fragments: [UInt8] = []
    var inMessage = false
    var messageIsBinary = false
    /// The first refusal OpenSSL gave a certificate of the server's chain, if any.
    var certificateError: Int32?

    /// The largest message taken from a server, whole or in fragments: its events are small
    /// and its speech comes a frame at a time. Past it the connection is closed with a
    /// `protocol` error, instead of the client growing for as long as a server sends.
    static let largestMessage = 16 << 20

    private init(endpoint: ServerEndpoint) {
        self.endpoint = endpoint
    }

    /// Opens a link, trying `endpoint.attempts` times with backoff (0.25 s, 0.5 s, 1 s, …)
    /// while the server refuses; a server that does not answer in `endpoint.timeout`, or
    /// whose certificate is refused, is not tried again.
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
                // connection and said nothing, or that is not who it should be, would only
                // make the caller wait longer.
                if e.code == "timeout" || e.code == "certificate" { break }
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
        if let ca = endpoint.certificateAuthorities, !FileManager.default.isReadableFile(atPath: ca.path) {
            throw RemoteError(code: "certificate", message: "\(ca.path): cannot read the certificate authorities file")
        }
        let target = (url.path.isEmpty ? "/" : url.path) + (url.query.map { "?" + $0 } ?? "")
        guard let context = makeContext(tls: tls) else {
            throw RemoteError(code: "connection", message: "cannot connect to \(host):\(port): libwebsockets could not start" + (tls ? " (TLS)" : ""))
        }
        let handle = Context(pointer: context)
        shared.withLock { $0.context = handle }
        let made: Result<Void, RemoteError>
        do {
            made = try await withTimeout(endpoint.timeout, late: { [self] late in
                if case .success(.success) = late { close() }
            }) { [self] in
                await withCheckedContinuation { c in
                    shared.withLock { $0.connectWaiter = c }
                    Thread.detachNewThread {
                        self.serve(handle.pointer, host: host, port: port, path: target, tls: tls)
                    }
                }
            }
        } catch {
            // No answer in time: the thread stops at once and closes the socket.
            stopNow()
            throw error
        }
        // A failed connection's thread ends on its own (it has freed or is freeing the context).
        if case .failure(let e) = made { throw e }
    }


    func send(_ object: [String: Any]) async throws {
        let data = try JSONSerialization.data(withJSONObject: object)
        try write(LWS_WRITE_TEXT, data)
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

    /// A binary frame, written before returning.
    func sendNow(_ data: Data) throws { try write(LWS_WRITE_BINARY, data) }

    /// Puts a frame in the outbox, wakes the service thread and waits until it is written.
    private func write(_ flag: lws_write_protocol, _ data: Data) throws {
        let frame = Frame(flag, data)
        let queued = shared.withLock { s -> Bool in
            guard s.connected, !s.ended, !s.closing, let context = s.context else { return false }
            s.frames.append(frame)
            lws_cancel_service(context.pointer)
            return true
        }
        guard queued else { throw closedReason() }
        frame.written.wait()
        if let failure = frame.failure {
            throw failure.code == "connection-lost" ? closedReason(failure) : failure
        }
    }

    /// Why the connection closed, when that is known (a message past the largest, say),
    /// before that it did.
    private func closedReason(_ fallback: RemoteError = RemoteError(code: "connection-lost", message: "the connection to the server dropped")) -> RemoteError {
        inbox.withLock { box in
            box.messages.waiting.lazy.compactMap { if case .failure(let e) = $0, e.code != "connection-lost" { e } else { nil } }.first
        } ?? fallback
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

    /// Closes the connection: what the outbox holds, a close frame, then the socket; waits
    /// for the service thread to finish (2 s at most for a server that does not answer the
    /// close, then the socket is closed without it).
    func close() {
        let running = shared.withLock { s -> Bool in
            guard let context = s.context, !s.ended, !s.closing else { return false }
            s.closing = true
            lws_cancel_service(context.pointer)
            return true
        }
        guard running else { return }
        if threadEnded.wait(timeout: .now() + 2) == .timedOut {
            stopNow()
            threadEnded.wait()
        }
        threadEnded.signal()  // for any other waiter
    }

    /// Stops the service thread at once; the socket closes with its context.
    private func stopNow() {
        shared.withLock { s in
            s.abandon = true
            if let context = s.context { lws_cancel_service(context.pointer) }
        }
    }

    /// ``close()`` on a thread of its own, for a caller that is giving up: a server that has
    /// gone quiet would hold it for the close handshake's wait.
    func closeLater() {
        Thread.detachNewThread { self.close() }
    }
}
