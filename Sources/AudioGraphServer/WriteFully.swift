import Foundation

/// Writes all of `bytes` to `fd`, again after a partial write or an interrupted one; false
/// once the descriptor fails (its reader went away or stopped reading past a send timeout).
/// Every writer of the server's sockets and pipes goes through here.
func writeFully(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var done = 0
    while done < bytes.count {
        let n = Foundation.write(fd, bytes.baseAddress! + done, bytes.count - done)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return false }
        done += n
    }
    return true
}
