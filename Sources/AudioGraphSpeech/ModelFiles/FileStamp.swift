import Foundation

/// A file's identity for caches of what was made from or found about it: its path, device,
/// inode, size and modification and status-change times, following symbolic links, so an
/// edited, replaced or re-linked file (a package update, a copy with its old time kept) no
/// longer matches what was made from the old one.
enum FileStamp {
    /// "path|dev|ino|size|mtime|ctime" (times in nanoseconds), or nil when the file cannot be looked at.
    static func of(_ path: String) -> String? {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        func ns(_ t: timespec) -> Int { t.tv_sec * 1_000_000_000 + t.tv_nsec }
        return "\(path)|\(s.st_dev)|\(s.st_ino)|\(s.st_size)|\(ns(s.st_mtim))|\(ns(s.st_ctim))"
    }
}
