import AudioGraphCore
import Foundation
import Synchronization

/// A connection's bytes over file descriptors (a TCP or unix socket, or stdin/stdout for
/// `stdio://`): blocking reads with an idle timeout, whole writes under a lock (replies from
/// the connection's thread and events from a session's delivery thread interleave by event).
/// A socket's writes time out (SO_SNDTIMEO): a client that stops reading fails its own
/// connection and stalls nobody else.
final class ByteChannel: @unchecked Sendable {
    let input: Int32
    let output: Int32
    /// Who is at the other end, for the log.
    let peer: String
    /// The errno of the write that failed, once one has (0 before).
    private let writeLock = Mutex<Int32>(0)
    private let closesOutput: Bool

    init(input: Int32, output: Int32, peer: String, isSocket: Bool, sendTimeout: Double) {
        self.input = input
        self.output = output
        self.peer = peer
        closesOutput = isSocket
        if isSocket {
            var tv = timeval(tv_sec: Int(sendTimeout), tv_usec: Int((sendTimeout - sendTimeout.rounded(.down)) * 1e6))
            setsockopt(output, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            var one: Int32 = 1
            setsockopt(output, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Reads what is there (up to `into.count`), waiting at most `timeout` seconds for it:
    /// bytes read, 0 at the end of the stream (or an error), nil after the timeout.
    func read(into buffer: inout [UInt8], timeout: Double) -> Int? {
        var p = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
        let r = poll(&p, 1, Int32(min(timeout, 86_400) * 1000))
        if r == 0 { return nil }
        if r < 0 { return errno == EINTR ? nil : 0 }
        let n = buffer.withUnsafeMutableBytes { Foundation.read(input, $0.baseAddress, $0.count) }
        return max(0, n)
    }

    /// Writes all of `data`; false if the connection failed (or failed before).
    @discardableResult
    func write(_ data: Data) -> Bool {
        writeLock.withLock { failure in
            if failure != 0 { return false }
            guard let e = data.withUnsafeBytes({ writeFully(output, $0) }) else { return true }
            failure = e
            return false
        }
    }

    /// Whether a write has failed (the client stopped reading or went away).
    var failed: Bool { writeLock.withLock { $0 != 0 } }

    /// Why the write failed, for the log: a client that stopped reading (the send timed out)
    /// or one that went away (the connection closed or reset under the write).
    var failure: String {
        switch writeLock.withLock({ $0 }) {
        case EAGAIN, EWOULDBLOCK: "stopped reading (writes timed out)"
        case EPIPE, ECONNRESET: "went away while its answer was written"
        case let e: "a write failed: \(String(cString: strerror(e)))"
        }
    }

    /// Closes the descriptors (sockets only; stdio stays).
    func close() {
        guard closesOutput else { return }
        shutdown(output, Int32(SHUT_RDWR))
        Foundation.close(output)
        if input != output { Foundation.close(input) }
    }
}
