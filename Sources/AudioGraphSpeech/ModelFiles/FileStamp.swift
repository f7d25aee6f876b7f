import Foundation

/// A file's identity for caches of what was made from it: its path, size and modification
/// time, so an edited file no longer matches what was made from the old one.
enum FileStamp {
    /// "path|size|mtime", or nil when the file cannot be looked at.
    static func of(_ path: String) -> String? {
        guard let a = try? FileManager.default.attributesOfItem(atPath: path),
              let m = a[.modificationDate] as? Date, let n = a[.size] as? NSNumber else { return nil }
        return "\(path)|\(n.intValue)|\(m.timeIntervalSince1970)"
    }
}
