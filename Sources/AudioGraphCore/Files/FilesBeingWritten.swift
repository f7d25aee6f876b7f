import Foundation

/// The files WAV sinks are writing, so that two sinks do not write one file: each writes at
/// its own offsets, and the file would hold their audio mixed block by block, whatever paths
/// name it (`out.wav` and `./out.wav`, a link). This process's writers by device and inode;
/// another process's (a second `audiograph run` of the same graph) by an advisory lock
/// (`flock`) on the file, held until the descriptor closes. A file system without locks
/// (ENOLCK) is written unlocked. Held from a writer's open to its close.
package enum FilesBeingWritten {
    private static let held = Locked<Set<FilesBeingRead.Identity>>([])

    /// What claiming the file open at a descriptor gave.
    package enum Claim {
        /// The writer's hold on a regular file, to give back at close.
        case held(FilesBeingRead.Identity)
        /// Not a regular file (`/dev/null`, `/dev/full`): any number may write it.
        case device
        /// Another writer of this process holds it.
        case taken
        /// Another process holds its lock.
        case takenElsewhere
    }

    /// Claims the file open at `fd` for one writer (its lock goes with the descriptor).
    package static func claim(_ fd: Int32) -> Claim {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .device }
        let id = FilesBeingRead.Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        guard held.withLock({ $0.insert(id).inserted }) else { return .taken }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK {
            release(id)
            return .takenElsewhere
        }
        return .held(id)
    }

    /// The writer of `id` has closed it.
    package static func release(_ id: FilesBeingRead.Identity) {
        _ = held.withLock { $0.remove(id) }
    }
}
