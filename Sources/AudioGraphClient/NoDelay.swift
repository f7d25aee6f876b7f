import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Turns off Nagle's algorithm on a TCP socket: a session's traffic is small frames (audio
/// every render block, control messages), and with Nagle on each waits for the peer's delayed
/// ACK, up to 40 ms on Linux. The client sets it on its WebSocket when the connection is made,
/// the server on the sockets it accepts for Wyoming.
package enum NoDelay {
    /// Small writes on `fd` (a TCP socket) go out at once.
    package static func set(on fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }
}
