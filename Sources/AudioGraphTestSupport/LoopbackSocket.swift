import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket on 127.0.0.1 for tests that stand in for a server, or need a free port.
public enum LoopbackSocket {
    /// A new TCP socket bound to a free port of 127.0.0.1 (and listening, with `listening`):
    /// the socket and its port, or nil if the system refused.
    public static func bound(listening: Bool) -> (fd: Int32, port: Int)? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p in
                bind(fd, p, length) == 0 && (!listening || listen(fd, 8) == 0) && getsockname(fd, p, &length) == 0
            }
        }
        guard ok else {
            close(fd)
            return nil
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A port of 127.0.0.1 nobody listens on now.
    public static func freePort() -> Int? {
        guard let (fd, port) = bound(listening: false) else { return nil }
        close(fd)
        return port
    }
}
