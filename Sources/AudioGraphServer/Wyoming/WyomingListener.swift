import AudioGraphClient
import AudioGraphCore
import CCloseOnExec
import Foundation
import Synchronization

/// Accepts Wyoming connections on `tcp://HOST:PORT` or `unix://PATH` (a thread per
/// connection), or serves one on `stdio://` (stdin/stdout: a parent process is the client).
final class WyomingListener: @unchecked Sendable {
    private let server: SpeechServer
    private var fd: Int32 = -1
    private let stopped = Atomic<Bool>(false)
    private var stdioDone: DispatchSemaphore?
    private var unixPath: String?
    /// Where it listens, as a URI (the port chosen when 0 was asked for).
    private(set) var boundDescription = ""

    init(uri: String, server: SpeechServer) throws {
        self.server = server
        if uri == "stdio://" {
            boundDescription = uri
            let done = DispatchSemaphore(value: 0)
            stdioDone = done
            let channel = ByteChannel(input: 0, output: 1, peer: "stdio", isSocket: false, sendTimeout: 0)
            Thread.detachNewThread {
                let connection = WyomingConnection(server: server, channel: channel)
                withExtendedLifetime(connection) { connection.run() }  // its session's events hold it weakly
                done.signal()
            }
            return
        }
        if uri.hasPrefix("unix://") {
            let path = String(uri.dropFirst(7))
            guard !path.isEmpty, path.utf8.count < 100 else { throw ServerError("--wyoming \(uri): expected unix://PATH (under 100 bytes)") }
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &addr.sun_path) { raw in
                for (i, b) in path.utf8.enumerated() { raw[i] = b }
            }
            // Only a socket nobody answers on (a server before this one, killed) is replaced:
            // a file there was deleted, and a live server's socket taken from it.
            switch PathKind(path) {
            case .missing: break
            case .socket:
                let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                let answered = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } } == 0
                close(probe)
                guard !answered else { throw ServerError("--wyoming \(uri): a server is listening there already") }
                unlink(path)
            case .directory: throw ServerError("--wyoming \(uri): is a folder, not a socket")
            default: throw ServerError("--wyoming \(uri): a file is there, not a socket (it is left as it is)")
            }
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            guard r == 0 else { throw ServerError("--wyoming \(uri): cannot bind: \(String(cString: strerror(errno)))") }
            unixPath = path
            boundDescription = uri
        } else if uri.hasPrefix("tcp://") {
            let rest = String(uri.dropFirst(6))
            guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]) else {
                throw ServerError("--wyoming \(uri): expected tcp://HOST:PORT")
            }
            let host = String(rest[..<colon])
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &addr.sin_addr) == 1 else {
                throw ServerError("--wyoming \(uri): \"\(host)\" is not an IPv4 address")
            }
            let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard r == 0 else { throw ServerError("--wyoming \(uri): cannot bind: \(String(cString: strerror(errno)))") }
            var bound = sockaddr_in()
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
            boundDescription = "tcp://\(host):\(UInt16(bigEndian: bound.sin_port))"
        } else {
            throw ServerError("--wyoming \(uri): expected tcp://HOST:PORT, unix://PATH or stdio://")
        }
        guard listen(fd, 128) == 0 else { throw ServerError("--wyoming \(uri): cannot listen: \(String(cString: strerror(errno)))") }
        let listening = fd
        let isUnix = unixPath != nil
        Thread.detachNewThread { [self] in
            var outOfFiles = false
            while !stopped.load(ordering: .acquiring) {
                var addr = sockaddr_storage()
                var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let c = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { ag_accept_cloexec(listening, $0, &len) } }
                if c < 0 {
                    let failure = errno  // before the log's write can change it
                    if failure == EINTR || failure == ECONNABORTED { continue }
                    if stopped.load(ordering: .acquiring) { break }
                    let noFiles = failure == EMFILE || failure == ENFILE
                    if noFiles && !outOfFiles {
                        server.write(log: "wyoming: out of open files (ulimit -n): new connections wait until others close")
                    }
                    outOfFiles = noFiles
                    usleep(10_000)  // out of descriptors: let connections close
                    continue
                }
                outOfFiles = false
                // Events are small writes (a header line, then data): without this Nagle holds
                // each until the client's delayed ACK, up to 40 ms.
                if !isUnix { NoDelay.set(on: c) }
                let peer = isUnix ? "unix" : Self.describe(addr)
                let channel = ByteChannel(input: c, output: c, peer: peer, isSocket: true, sendTimeout: 10)
                guard server.connections.admit() else {
                    server.metrics.refused(.wyoming, "connections")
                    channel.write(WyomingEvent("error", ["text": server.connections.refusal, "code": "busy"]).encoded())
                    channel.close()
                    continue
                }
                Thread.detachNewThread { [server] in
                    defer { server.connections.release() }
                    let connection = WyomingConnection(server: server, channel: channel)
                    withExtendedLifetime(connection) { connection.run() }  // its session's events hold it weakly
                }
            }
        }
    }

    private static func describe(_ storage: sockaddr_storage) -> String {
        var s = storage
        return withUnsafePointer(to: &s) { p in
            p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { a in
                var buf = [CChar](repeating: 0, count: 64)
                var addr = a.pointee.sin_addr
                inet_ntop(AF_INET, &addr, &buf, 64)
                let text = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return "\(text):\(UInt16(bigEndian: a.pointee.sin_port))"
            }
        }
    }

    /// Stops accepting (connections in flight go on).
    func stop() {
        stopped.store(true, ordering: .releasing)
        if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)); close(fd); fd = -1 }
        if let unixPath { unlink(unixPath) }
    }

    /// For `stdio://`: blocks until the client closes stdin. nil for sockets.
    func waitForStdioEnd() -> Void? {
        guard let stdioDone else { return nil }
        stdioDone.wait()
        return ()
    }
}
