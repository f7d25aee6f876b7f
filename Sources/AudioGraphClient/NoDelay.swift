import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Turns off Nagle's algorithm on this process's TCP connections to a port.
///
/// civetweb 1.15's WebSocket client neither sets `TCP_NODELAY` nor gives its socket to the
/// caller, and a session's traffic is small frames (audio every render block, control
/// messages): with Nagle on, each waits for the server's delayed ACK, up to 40 ms on Linux.
/// After a connection is made, every connected TCP socket of this process whose peer has
/// `port` gets `TCP_NODELAY` (other connections to the same server want it too). The server
/// sets it on the sockets it accepts for Wyoming with ``set(on:)``.
package enum NoDelay {
    /// Small writes on `fd` (a TCP socket) go out at once.
    package static func set(on fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    package static func apply(toPeerPort port: Int) {
        guard let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for name in fds {
            guard let fd = Int32(name) else { continue }
            var kind: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &kind, &length) == 0, kind == Int32(SOCK_STREAM.rawValue) else { continue }
            var peer = sockaddr_storage()
            var peerLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let peerPort: UInt16? = withUnsafeMutablePointer(to: &peer) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { a -> UInt16? in
                    guard getpeername(fd, a, &peerLength) == 0 else { return nil }
                    switch Int32(a.pointee.sa_family) {
                    case AF_INET: return a.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
                    case AF_INET6: return a.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
                    default: return nil
                    }
                }
            }
            if peerPort == UInt16(truncatingIfNeeded: port) { set(on: fd) }
        }
    }
}
