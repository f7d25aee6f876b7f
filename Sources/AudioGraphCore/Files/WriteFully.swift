import Foundation

/// Writes all of `bytes` to `fd`, again after a partial write or an interrupted one. Nil when
/// everything was written, else the errno of the write that failed (a full disk, a reader
/// that went away or stopped reading past a send timeout). Never throws or traps (Foundation's
/// `FileHandle.write(_:)` traps on a failed write). Every writer of the server's sockets and
/// pipes, and of the command line's standard output, goes through here.
package func writeFully(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    var done = 0
    while done < bytes.count {
        let n = Foundation.write(fd, bytes.baseAddress! + done, bytes.count - done)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return n < 0 ? errno : EIO }
        done += n
    }
    return nil
}
