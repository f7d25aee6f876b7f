import Foundation

/// The files WAV sinks are writing, so that two sinks do not write one file: each writes at
/// its own offsets, and the file would hold their audio mixed block by block, whatever paths
/// name it (`out.wav` and `./out.wav`, a link). This process's writers by device and inode;
/// another process's (a second `audiograph run` of the same graph) by an advisory lock
/// (`flock`) on the file, held until the descriptor closes. A file system without locks
/// (ENOLCK) is written unlocked. Held from a writer's open to its close; claimed at prepare
/// and reset, never on the audio path.
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
        if !lock(fd) {
            release(id)
            return .takenElsewhere
        }
        return .held(id)
    }

    /// Takes the file's lock, or false when another process holds it for ``lockPatience``.
    ///
    /// A child this process forks holds a copy of every descriptor until it executes its
    /// program (close-on-exec closes them only then), and with it the lock of a file a writer
    /// here has just closed: the next writer of that file found it locked "by another process"
    /// (1,428 times in 20,000 claims while another thread started `/bin/true` in a loop). So a
    /// refusal waits out such a copy first. ENOLCK (no locks on this file system): unlocked.
    private static func lock(_ fd: Int32) -> Bool {
        let deadline = monotonicSeconds() + lockPatience
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { return true }
            if monotonicSeconds() > deadline { return false }
            usleep(2000)
        }
        return true
    }

    /// How long a locked file is tried again before it is taken to be another process's.
    static let lockPatience = 0.25

    /// The writer of `id` has closed it.
    package static func release(_ id: FilesBeingRead.Identity) {
        _ = held.withLock { $0.remove(id) }
    }
}
