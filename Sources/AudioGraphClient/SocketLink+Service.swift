import CLibWebsockets
import Foundation

/// The service thread of a ``SocketLink``: its libwebsockets context, connection, callbacks,
/// the pieces of messages it puts together and the outbox it writes.
extension SocketLink {
    func makeContext(tls: Bool) -> OpaquePointer? {
        _ = Self.quiet
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.gid = -1
        info.uid = -1
        info.protocols = UnsafePointer(Self.protocols)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        // One connection: a table of 8 descriptors, not one sized by `ulimit -n`.
        info.fd_limit_per_thread = 8
        info.timeout_secs = UInt32(endpoint.timeout.rounded(.up)) + 1
        info.connect_timeout_secs = info.timeout_secs
        if tls { info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) }
        return endpoint.certificateAuthorities.map(\.path).withOptionalCString { ca in
            info.client_ssl_ca_filepath = ca
            return lws_create_context(&info)
        }
    }

    /// The service thread: connects, then serves the connection until it closes, then frees
    /// the context. It keeps the link alive while it runs.
    func serve(_ context: OpaquePointer, host: String, port: Int, path: String, tls: Bool) {
        let hostPort = port == (tls ? 443 : 80) ? host : "\(host):\(port)"
        let made: OpaquePointer? = host.withCString { h in
            hostPort.withCString { hp in
                path.withCString { p in
                    var i = lws_client_connect_info()
                    i.context = context
                    i.address = h
                    i.port = Int32(port)
                    i.path = p
                    i.host = hp
                    i.origin = hp
                    i.ietf_version_or_minus_one = -1
                    i.ssl_connection = tls ? Int32(LCCSCF_USE_SSL.rawValue) : 0
                    return lws_client_connect_via_info(&i)
                }
            }
        }
        if made == nil && !stopped {
            finishConnect(.failure(RemoteError(code: "connection", message: "cannot connect to \(host):\(port)")))
            stopped = true
        }
        while !stopped {
            if lws_service(context, 0) < 0 { break }
        }
        let unwritten = shared.withLock { s -> [Frame] in
            s.ended = true
            s.context = nil
            var left: [Frame] = []
            while !s.frames.isEmpty { left.append(s.frames.takeFirst()) }
            return left
        }
        lws_context_destroy(context)
        for f in unwritten {
            f.failure = RemoteError(code: "connection-lost", message: "the connection to the server dropped")
            f.written.signal()
        }
        finishConnect(.failure(RemoteError(code: "connection", message: "cannot connect to \(host):\(port)")))
        post(.failure(RemoteError(code: "connection-lost", message: "the connection to the server dropped")), finish: true)
        threadEnded.signal()
    }

    /// Resumes the connect with `result`, once (what comes later is dropped).
    func finishConnect(_ result: Result<Void, RemoteError>) {
        let waiter = shared.withLock { s -> CheckedContinuation<Result<Void, RemoteError>, Never>? in
            if case .success = result { s.connected = true }
            defer { s.connectWaiter = nil }
            return s.connectWaiter
        }
        waiter?.resume(returning: result)
    }

    /// libwebsockets' callback, on the service thread.
    private func event(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                       _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION:
            // OpenSSL's verdict on a certificate of the chain (user: the X509_STORE_CTX), kept
            // to say why a handshake failed; 0 leaves the verdict as it is.
            if length == 0, let store = user.map({ OpaquePointer($0) }) {
                let error = X509_STORE_CTX_get_error(store)
                if error != X509_V_OK, certificateError == nil { certificateError = error }
            }
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            self.wsi = wsi
            // Each small frame goes out at once, not after the server's delayed ACK (40 ms).
            NoDelay.set(on: lws_get_socket_fd(wsi))
            finishConnect(.success(()))
            lws_callback_on_writable(wsi)
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let why = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? ""
            finishConnect(.failure(connectionFailure(why)))
            stopped = true
        case LWS_CALLBACK_CLIENT_RECEIVE:
            return take(wsi, UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)) ? 0 : -1
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return writeNext(wsi)
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            // Another thread wrote to the outbox, asked to close, or gave up.
            let (abandon, closing) = shared.withLock { ($0.abandon, $0.closing) }
            if abandon || (closing && self.wsi == nil) {
                stopped = true
            } else if let connection = self.wsi {
                lws_callback_on_writable(connection)
            }
        case LWS_CALLBACK_CLIENT_CLOSED:
            self.wsi = nil
            stopped = true
        default:
            break
        }
        return 0
    }

    /// Why a connection was not made, from libwebsockets' words.
    private func connectionFailure(_ why: String) -> RemoteError {
        let place = "\(endpoint.socketURL.host ?? ""):\(endpoint.socketURL.port ?? (endpoint.socketURL.scheme == "wss" ? 443 : 80))"
        if let code = certificateError {
            let reason = String(cString: X509_verify_cert_error_string(Int(code)))
            let trust = endpoint.certificateAuthorities.map { "the certificates in \($0.path)" } ?? "the system's certificate authorities"
            return RemoteError(code: "certificate", message: "\(place): the server's certificate is refused (\(reason); checked against \(trust))")
        }
        let text = why.trimmingCharacters(in: .whitespacesAndNewlines)
        return RemoteError(code: "connection", message: "cannot connect to \(place): \(text.isEmpty ? "refused" : text)")
    }

    /// One piece of a frame: put together, posted when its message is whole.
    private func take(_ wsi: OpaquePointer, _ bytes: UnsafeRawBufferPointer) -> Bool {
        if !inMessage {
            inMessage = true
            fragments.removeAll(keepingCapacity: true)
            messageIsBinary = lws_frame_is_binary(wsi) != 0
        }
        guard fragments.count + bytes.count <= Self.largestMessage else {
            fragments.removeAll()
            post(.failure(RemoteError(code: "protocol", message: "the server sent a message of more than \(Self.largestMessage >> 20) MB")))
            return false  // libwebsockets closes the connection
        }
        fragments.append(contentsOf: bytes)
        guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else { return true }
        inMessage = false
        if messageIsBinary {
            post(.success(.data(Data(fragments))))
        } else {
            switch PeerJSON.object(fragments) {
            case .success(let o): post(.success(.json(o)))
            case .failure(let failure):
                post(.failure(RemoteError(code: "protocol", message: "the server sent a message that is \(failure)")))
            }
        }
        return true
    }

    /// The socket can take a frame: the outbox's first, or the close once it is empty.
    private func writeNext(_ wsi: OpaquePointer) -> Int32 {
        let (frame, more, closing) = shared.withLock { s -> (Frame?, Bool, Bool) in
            let f = s.frames.isEmpty ? nil : s.frames.takeFirst()
            return (f, !s.frames.isEmpty, s.closing)
        }
        guard let frame else {
            if closing {
                lws_close_reason(wsi, LWS_CLOSE_STATUS_NORMAL, nil, 0)
                return -1
            }
            return 0
        }
        let count = frame.bytes.count - ag_lws_pre()
        let n = frame.bytes.withUnsafeMutableBufferPointer { b in
            lws_write(wsi, b.baseAddress! + ag_lws_pre(), count, frame.protocolFlag)
        }
        if n < count { frame.failure = RemoteError(code: "connection-lost", message: "the connection to the server dropped (a write failed)") }
        frame.written.signal()
        if n < count { return -1 }
        if more || closing { lws_callback_on_writable(wsi) }
        return 0
    }

    /// Hands `item` to the waiting receiver, or keeps it for the next.
    func post(_ item: Result<Message, RemoteError>, finish: Bool = false) {
        let waiter = inbox.withLock { box -> CheckedContinuation<Result<Message, RemoteError>, Never>? in
            if box.finished { return nil }
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

    /// libwebsockets logs nothing: what goes wrong reaches the caller as a ``RemoteError``.
    private static let quiet: Void = lws_set_log_level(0, nil)

    /// The one protocol every link's context serves (the array ends with an empty entry).
    nonisolated(unsafe) private static let protocols: UnsafeMutablePointer<lws_protocols> = {
        let p = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
        p.initialize(repeating: lws_protocols(), count: 2)
        p[0].name = UnsafePointer(strdup("audiograph"))
        p[0].callback = { wsi, reason, user, input, length in
            guard let wsi, let context = lws_get_context(wsi), let me = lws_context_user(context) else { return 0 }
            return Unmanaged<SocketLink>.fromOpaque(me).takeUnretainedValue().event(wsi, reason, user, input, length)
        }
        p[0].rx_buffer_size = 65536
        return p
    }()
}

private extension Optional where Wrapped == String {
    /// `body` with the string as a C string, or with nil.
    func withOptionalCString<R>(_ body: (UnsafePointer<CChar>?) -> R) -> R {
        switch self {
        case .some(let s): return s.withCString(body)
        case .none: return body(nil)
        }
    }
}
