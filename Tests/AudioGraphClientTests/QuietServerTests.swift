import AudioGraphClient
import AudioGraphTestSupport
import CLibWebsockets
import Foundation
import Synchronization
import Testing

/// The Swift client against servers that take the connection and then say nothing: each call
/// fails with `timeout` once the endpoint's timeout has passed, instead of waiting for ever.
/// (Before, a silent listener held `start()` for civetweb's own minute, and a server that
/// answered the handshake and nothing else held it until the server closed.) And against
/// servers that ping, close, or send messages too deep or too large to take.
@Suite struct QuietServerTests {
    /// A TCP listener on a free loopback port that accepts and reads, and answers nothing, or
    /// only the WebSocket handshake (its accept hash right: the client checks it), then
    /// optionally one text message (in fragments of 1 MiB).
    final class QuietServer: @unchecked Sendable {
        let port: Int
        private let listener: Int32
        private final class Accepted: Sendable {
            let fds = Mutex<[Int32]>([])
            let pongs = Mutex<[String]>([])
            let closes = Mutex<[UInt16]>([])
        }
        private let accepted = Accepted()

        init(handshake: Bool, ping: Bool = false, says message: String? = nil, closesWith closeCode: UInt16? = nil) throws {
            guard let (listener, port) = LoopbackSocket.bound(listening: true) else { throw RemoteError(code: "test", message: "cannot listen") }
            self.listener = listener
            self.port = port
            let accepted = self.accepted
            Thread.detachNewThread {
                while true {
                    let c = accept(listener, nil, nil)
                    guard c >= 0 else { return }
                    accepted.fds.withLock { $0.append(c) }
                    guard handshake else { continue }
                    var request = [UInt8](repeating: 0, count: 4096)
                    let n = read(c, &request, request.count)
                    let reply = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Accept: \(Self.acceptHash(String(decoding: request.prefix(max(0, n)), as: UTF8.self)))\r\n\r\n"
                    _ = reply.withCString { write(c, $0, strlen($0)) }
                    if let message {
                        // In fragments of at most 1 MiB (a text frame, then continuations).
                        let text = Array(message.utf8)
                        let pieces = stride(from: 0, to: text.count, by: 1 << 20).map { text[$0..<min($0 + (1 << 20), text.count)] }
                        for (i, piece) in pieces.enumerated() {
                            let opcode: UInt8 = (i == 0 ? 0x1 : 0x0) | (i == pieces.count - 1 ? 0x80 : 0)
                            let length: [UInt8] = piece.count < 1 << 16
                                ? [126] + (0..<2).reversed().map { UInt8(truncatingIfNeeded: piece.count >> (8 * $0)) }
                                : [127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: piece.count >> (8 * $0)) }
                            let frame: [UInt8] = [opcode] + length + piece
                            var sent = 0
                            // MSG_NOSIGNAL: a client that closes first is no SIGPIPE for the tests.
                            while sent < frame.count, case let n = frame.withUnsafeBytes({ send(c, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }), n > 0 { sent += n }
                            guard sent == frame.count else { break }
                        }
                    }
                    if let closeCode {
                        let frame: [UInt8] = [0x88, 2, UInt8(closeCode >> 8), UInt8(closeCode & 0xFF)]
                        _ = frame.withUnsafeBytes { send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                        Self.readFrames(c) { opcode, payload in
                            if opcode == 0x8 && payload.count >= 2 {
                                accepted.closes.withLock { $0.append(UInt16(payload[0]) << 8 | UInt16(payload[1])) }
                            }
                        }
                        continue
                    }
                    guard ping else { continue }
                    let frame: [UInt8] = [0x89, 4] + Array("beat".utf8)
                    _ = frame.withUnsafeBytes { write(c, $0.baseAddress, $0.count) }
                    Self.readFrames(c) { opcode, payload in
                        if opcode == 0xA { accepted.pongs.withLock { $0.append(String(decoding: payload, as: UTF8.self)) } }
                    }
                }
            }
        }

        /// The handshake's Sec-WebSocket-Accept for a request (RFC 6455 4.2.2): SHA-1 of its key
        /// and the protocol's GUID, in base 64.
        static func acceptHash(_ request: String) -> String {
            let key = request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }?
                .dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) ?? ""
            let text = Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)
            var digest = [UInt8](repeating: 0, count: 20)
            _ = SHA1(text, text.count, &digest)
            return Data(digest).base64EncodedString()
        }

        /// Reads a client's (masked) frames until the connection ends, handing each over.
        static func readFrames(_ fd: Int32, _ each: (_ opcode: UInt8, _ payload: [UInt8]) -> Void) {
            var buffer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while case let n = read(fd, &chunk, chunk.count), n > 0 {
                buffer += chunk[..<n]
                while buffer.count >= 2 {
                    var length = Int(buffer[1] & 0x7F), at = 2
                    if length == 126, buffer.count >= 4 { length = Int(buffer[2]) << 8 | Int(buffer[3]); at = 4 }
                    if length == 127 { return }  // not sent by these tests
                    guard buffer.count >= at + 4 + length else { break }
                    let mask = Array(buffer[at..<at + 4])
                    let payload = (0..<length).map { buffer[at + 4 + $0] ^ mask[$0 % 4] }
                    each(buffer[0] & 0x0F, payload)
                    buffer.removeFirst(at + 4 + length)
                }
            }
        }

        /// Payloads of the pongs the client sent back (with `ping`, the server pings once
        /// after the handshake and reads the client's frames).
        var pongs: [String] { accepted.pongs.withLock { $0 } }

        /// Status codes of the close frames the client sent back (with `closesWith`, the server
        /// closes after the handshake and reads the client's frames).
        var closes: [UInt16] { accepted.closes.withLock { $0 } }

        /// Connections accepted so far.
        var connections: Int { accepted.fds.withLock { $0.count } }

        func endpoint(timeout: Double) -> ServerEndpoint {
            ServerEndpoint(url: URL(string: "ws://127.0.0.1:\(port)")!, timeout: timeout, attempts: 3)
        }

        deinit {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
            accepted.fds.withLock { for c in $0 { close(c) } }
        }
    }

    /// What `call` threw, or nil if it returned; waits at most `bound` seconds from the call's
    /// start (far more than the timeout under test: the fault was a wait of minutes, or for
    /// ever), so a regression fails the test instead of hanging the suite. Counted from the
    /// call's start, not the test's: in the whole suite, tests that block the cooperative pool
    /// can hold a task back for minutes before it runs.
    static func failure(within bound: Double = 120, _ call: @escaping @Sendable () async throws -> Void) async -> RemoteError? {
        let outcome = Mutex<(started: Date?, done: Bool, error: RemoteError?)>((nil, false, nil))
        Task.detached {
            outcome.withLock { $0.started = Date() }
            do { try await call() } catch { outcome.withLock { $0.error = (error as? RemoteError) ?? RemoteError(code: "other", message: "\(error)") } }
            outcome.withLock { $0.done = true }
        }
        while true {
            let o = outcome.withLock { $0 }
            if o.done { return o.error }
            if let started = o.started, Date().timeIntervalSince(started) > bound {
                return RemoteError(code: "hang", message: "still waiting after \(bound) s")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    static let timedOut = RemoteError(code: "timeout", message: "no answer from the server in 1.0 s")

    @Test(arguments: [false, true]) func aSessionStartGivesUpAtTheTimeout(handshake: Bool) async throws {
        let server = try QuietServer(handshake: handshake)
        // Three attempts allowed, none repeated: a server that took the connection has had its time.
        let endpoint = server.endpoint(timeout: 1)
        #expect(await Self.failure { try await RemoteRecognitionSession(endpoint).start() } == Self.timedOut)
        #expect(server.connections == 1)
    }

    @Test func aVocalizerGivesUpAtTheTimeoutAndConnectsAgain() async throws {
        let server = try QuietServer(handshake: true)
        let vocalizer = RemoteVocalizer(server.endpoint(timeout: 1))
        for _ in 0..<2 {
            #expect(await Self.failure { _ = try await vocalizer.speak("hello") } == Self.timedOut)
        }
        #expect(server.connections == 2)
        vocalizer.close()
    }

    @Test func aPingIsAnsweredWithItsPayload() async throws {
        // Servers and proxies that ping (RFC 6455) close a client that does not answer.
        let server = try QuietServer(handshake: true, ping: true)
        _ = await Self.failure { try await RemoteRecognitionSession(server.endpoint(timeout: 1)).start() }
        #expect(server.pongs == ["beat"])
    }

    @Test func aServersCloseIsAnsweredWithItsCode() async throws {
        // RFC 6455 5.5.1: before, the client dropped the connection without a close frame.
        let server = try QuietServer(handshake: true, closesWith: 1001)
        let error = await Self.failure { try await RemoteRecognitionSession(server.endpoint(timeout: 5)).start() }
        #expect(error != nil)
        for _ in 0..<100 where server.closes.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        #expect(server.closes == [1001])
    }

    /// A speak-start whose rate is no rate the engine runs at (it becomes a remote-synth node's
    /// format): a protocol error naming it. Before, 0 or 1e12 was taken as the speech's rate.
    @Test(arguments: ["0", "-16000", "16000.5", "1e12", "\"fast\""])
    func aSpeechRateOutsideTheEnginesIsAnError(_ rate: String) async throws {
        let padding = String(repeating: "x", count: 130)  // the test server writes 126 bytes or more
        let server = try QuietServer(handshake: true, says: "{\"type\":\"speak-start\",\"rate\":\(rate),\"id\":1,\"pad\":\"\(padding)\"}")
        let vocalizer = RemoteVocalizer(server.endpoint(timeout: 5))
        let error = await Self.failure { _ = try await vocalizer.speak("hello") }
        vocalizer.close()
        #expect(error?.code == "protocol", "\(String(describing: error))")
        #expect(error?.message.contains("not 8000-192000 Hz") == true, "\(String(describing: error))")
    }

    @Test func aMessageNestedTooDeepIsAnErrorNotACrash() async throws {
        // 500 levels: Foundation takes up to 512, and parsing them on the thread the
        // WebSocket library calls the client on overflowed its stack (the process died). The frame is written
        // with a 16- or 64-bit length, so the message must be at least 126 bytes long.
        let deep = String(repeating: "{\"a\":", count: 500) + "1" + String(repeating: "}", count: 500)
        let server = try QuietServer(handshake: true, says: "{\"type\":\"started\",\"x\":\(deep)}")
        let error = await Self.failure { try await RemoteRecognitionSession(server.endpoint(timeout: 5)).start() }
        #expect(error?.code == "protocol")
        #expect(error?.message.contains("nested deeper than 64 levels") == true)
    }

    @Test func aMessagePastTheLargestIsAnErrorNotAllMemory() async throws {
        // A server may send fragments without end (the library hands each piece over as it
        // comes); here 17 of 1 MiB.
        let huge = "{\"type\":\"started\",\"x\":\"" + String(repeating: "x", count: 17 << 20) + "\"}"
        let server = try QuietServer(handshake: true, says: huge)
        let error = await Self.failure { try await RemoteRecognitionSession(server.endpoint(timeout: 30)).start() }
        #expect(error?.code == "protocol")
        #expect(error?.message == "the server sent a message of more than 16 MB")
    }
}
