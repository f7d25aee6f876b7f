import CCivetweb
import AudioGraph
import AudioGraphCore
import Foundation
import Synchronization

/// The HTTP side of `audiograph serve`, on civetweb (Debian's libcivetweb-dev: HTTP, WebSocket
/// framing, TLS): `GET /healthz`, `GET /metrics`, `GET /` (the page), and two WebSocket
/// protocols, vosk-server's at `/` and audiograph's own at `/audiograph`.
///
/// civetweb gives every connection a worker thread of its own for its life; a WebSocket's
/// messages arrive on it in order (``WebSocketConnection``), so a session's pushes, which
/// wait while its graph is a buffer behind, slow that client alone.
final class HTTPServer: @unchecked Sendable {
    let server: SpeechServer
    private var context: OpaquePointer?
    /// `HOST:PORT` as bound.
    private(set) var boundAddress = ""
    /// The open WebSockets, watched for the idle limit.
    let sockets = Mutex<[ObjectIdentifier: WebSocketConnection]>([:])
    private let stopping = Atomic<Bool>(false)

    init(address: String, server: SpeechServer) throws {
        self.server = server
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]), (0...65535).contains(port) else {
            throw ServerError("--http \(address): expected HOST:PORT")
        }
        let host = String(address[..<colon])
        // Debian builds civetweb without IPv6 (mg_check_feature(8) is 0): it would only say
        // "invalid port spec".
        if host.contains(":") && mg_check_feature(8) == 0 {
            throw ServerError("--http \(address): this civetweb has no IPv6 (Debian builds it without): listen on an IPv4 "
                              + "address (0.0.0.0 for every interface), with HAProxy in front for IPv6 clients")
        }
        mg_init_library(0)
        // A worker per connection: every connection the limit allows (WebSocket ones hold
        // theirs for their life), plus workers that only plain requests (health checks,
        // metrics, the page) and refusals ever find free.
        let threads = server.configuration.maxConnections + 16
        let options = [
            "listening_ports", "\(host.isEmpty ? "127.0.0.1" : host):\(port)",
            "num_threads", "\(threads)",
            "request_timeout_ms", "10000",
            "websocket_timeout_ms", "\(Int(server.configuration.idleSeconds * 1000))",
            "enable_websocket_ping_pong", "no",
            // Events are small frames: without it Nagle holds each until the client's delayed ACK (40 ms).
            "tcp_nodelay", "1",
        ]
        var cStrings = options.map { strdup($0) }
        cStrings.append(nil)
        defer { for p in cStrings { free(p) } }
        var callbacks = mg_callbacks()
        callbacks.log_message = { _, message in
            // civetweb's own complaints (a bad request line, a port in use) go to our log.
            if let message { try? FileHandle.standardError.write(contentsOf: Data("serve: http: \(String(cString: message))\n".utf8)) }
            return 1
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        context = cStrings.withUnsafeMutableBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: p.count) { mg_start(&callbacks, me, $0) }
        }
        guard let context else { throw ServerError("--http \(address): cannot listen (port in use, or not an address of this machine)") }
        var ports = [mg_server_port](repeating: mg_server_port(), count: 4)
        let n = mg_get_server_ports(context, 4, &ports)
        boundAddress = "\(host.isEmpty ? "127.0.0.1" : host):\(n > 0 ? Int(ports[0].port) : port)"

        mg_set_request_handler(context, "/healthz$", { conn, data in
            let me = Unmanaged<HTTPServer>.fromOpaque(data!).takeUnretainedValue()
            let ready = me.server.isReady
            return me.reply(conn, status: ready ? 200 : 503, type: "text/plain", body: ready ? "ready\n" : (me.server.limiter.isDraining ? "draining\n" : "loading\n"))
        }, me)
        mg_set_request_handler(context, "/metrics$", { conn, data in
            let me = Unmanaged<HTTPServer>.fromOpaque(data!).takeUnretainedValue()
            let text = me.server.metrics.exposition(ready: me.server.isReady, draining: me.server.limiter.isDraining,
                                                    spareDecoders: RecognitionSession.loadedModelsKept)
            return me.reply(conn, status: 200, type: "text/plain; version=0.0.4", body: text)
        }, me)
        // Plain HTTP to the WebSocket path (a browser given the ws:// address as http://):
        // 426 says what it is, where civetweb said 404 Not Found.
        mg_set_request_handler(context, "/audiograph$", { conn, data in
            let me = Unmanaged<HTTPServer>.fromOpaque(data!).takeUnretainedValue()
            return me.reply(conn, status: 426, type: "text/plain",
                            body: "a WebSocket (audiograph's protocol): connect to ws://HOST:PORT/audiograph\n",
                            headers: "Upgrade: websocket\r\n")
        }, me)
        mg_set_request_handler(context, "/$", { conn, data in
            let me = Unmanaged<HTTPServer>.fromOpaque(data!).takeUnretainedValue()
            return me.reply(conn, status: 200, type: "text/html; charset=utf-8", body: WebPage.html)
        }, me)
        for (path, kind) in [("/audiograph$", WebSocketConnection.Kind.audiograph), ("/$", .vosk)] {
            let route = SocketRoute(server: server, kind: kind)
            route.http = self
            let box = Unmanaged.passRetained(route).toOpaque()
            mg_set_websocket_handler(context, path, { _, _ in 0 }, { conn, data in
                let route = Unmanaged<SocketRoute>.fromOpaque(data!).takeUnretainedValue()
                let c = WebSocketConnection(connection: conn!, route: route)
                mg_set_user_connection_data(conn, Unmanaged.passRetained(c).toOpaque())
                route.http?.sockets.withLock { $0[ObjectIdentifier(c)] = c }
                c.opened()
            }, { conn, flags, bytes, length, _ in
                guard let p = mg_get_user_connection_data(conn) else { return 0 }
                let c = Unmanaged<WebSocketConnection>.fromOpaque(p).takeUnretainedValue()
                return c.received(flags: flags, bytes: UnsafeRawBufferPointer(start: bytes, count: length)) ? 1 : 0
            }, { conn, _ in
                guard let p = mg_get_user_connection_data(conn) else { return }
                mg_set_user_connection_data(conn, nil)
                let c = Unmanaged<WebSocketConnection>.fromOpaque(p).takeRetainedValue()
                c.route.http?.sockets.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(c)) }
                c.closed()
            }, box)
        }
    }

    /// Closes WebSockets whose client has sent nothing for `--idle-timeout` (civetweb's own
    /// websocket timeout does not close them): an `idle` error, then the close frame.
    func watchIdle() {
        let limit = server.configuration.idleSeconds
        let t = Thread { [self] in
            while !stopping.load(ordering: .relaxed) {
                usleep(250_000)
                let now = monotonicSeconds()
                let idle = sockets.withLock { $0.values.filter { now - $0.lastHeard.load(ordering: .relaxed) > limit } }
                for c in idle {
                    c.lastHeard.store(now, ordering: .relaxed)  // once
                    c.server.write(log: "websocket \(c.peer): closed: idle for \(Int(limit)) s")
                    c.refuse(code: "idle", message: "no message for \(Int(limit)) s: closing")
                }
            }
        }
        t.stackSize = 256 << 10
        t.start()
    }

    /// Sends a whole response; civetweb's handler result (the status).
    /// Answers a plain request: to GET with `body`, to HEAD with the same head and no body
    /// (RFC 9110 9.3.2: a client reading one would take it for the next response), to any
    /// other method 405 naming the two. civetweb closes each such connection after its one
    /// request (keep-alive is off), and the head says so.
    private func reply(_ conn: OpaquePointer?, status: Int, type: String, body: String, headers: String = "") -> Int32 {
        let method = mg_get_request_info(conn)?.pointee.request_method.map { String(cString: $0) } ?? "GET"
        var status = status, type = type, bytes = Array(body.utf8), allow = headers
        if method != "GET" && method != "HEAD" {
            (status, type, allow) = (405, "text/plain", "Allow: GET, HEAD\r\n")
            bytes = Array("\(method) is not served here (GET or HEAD)\n".utf8)
        }
        let reason = [200: "OK", 405: "Method Not Allowed", 426: "Upgrade Required", 503: "Service Unavailable"][status] ?? "Error"
        let head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(type)\r\nContent-Length: \(bytes.count)\r\n"
            + "Cache-Control: no-store\r\n\(allow)Connection: close\r\n\r\n"
        _ = head.withCString { mg_write(conn, $0, strlen($0)) }
        if method != "HEAD" { _ = bytes.withUnsafeBytes { mg_write(conn, $0.baseAddress, $0.count) } }
        return Int32(status)
    }

    func stop() {
        stopping.store(true, ordering: .relaxed)
        if let context { mg_stop(context) }
        context = nil
    }
}

/// What a WebSocket path serves (civetweb's callback data).
final class SocketRoute: @unchecked Sendable {
    let server: SpeechServer
    let kind: WebSocketConnection.Kind
    weak var http: HTTPServer?
    init(server: SpeechServer, kind: WebSocketConnection.Kind) {
        self.server = server
        self.kind = kind
    }
}
