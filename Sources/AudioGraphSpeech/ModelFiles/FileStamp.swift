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

    /// Each file's stamp, a file that cannot be looked at as "path|missing".
    static func of(all files: [String]) -> [String] { files.map { of($0) ?? "\($0)|missing" } }

    /// A short name for what was made from `text` (stamps): FNV-1a in hex, the same in every
    /// run, unlike Swift's seeded hashes.
    static func digest(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return String(hash, radix: 16)
    }
}
