import Foundation

/// The files this process's file sources have open, by device and inode, so that a sink does
/// not truncate one of them. A WAV source reads its file mapped into memory: cut short under
/// it, a read is SIGBUS, and the file, the user's own recording, is lost besides
/// (`run --source talk.wav --sink talk.wav` did both). Held while a source lives; any graph
/// of the process counts (a server's, an app's), whatever path names the file.
package enum FilesBeingRead {
    /// A file, as the kernel knows it.
    package struct Identity: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64

        init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }

        /// What `path` names (after links), or nil when it names nothing.
        package init?(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    private static let open = Locked<[Identity: Int]>([:])

    /// Counts `path` as being read until ``closed(_:)``; its identity, or nil if it names nothing.
    package static func opened(_ path: String) -> Identity? {
        guard let id = Identity(path) else { return nil }
        open.withLock { $0[id, default: 0] += 1 }
        return id
    }

    /// The reader of `id` has finished with it.
    package static func closed(_ id: Identity) {
        open.withLock { readers in
            if let n = readers[id], n > 1 { readers[id] = n - 1 } else { readers[id] = nil }
        }
    }

    /// Whether a file source of this process is reading the file `path` names.
    package static func contains(_ path: String) -> Bool {
        guard let id = Identity(path) else { return false }
        return open.withLock { $0[id] != nil }
    }
}
