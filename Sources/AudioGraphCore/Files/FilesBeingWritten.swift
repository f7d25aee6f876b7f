import Foundation

/// The files this process's WAV sinks are writing, by device and inode, so that two sinks
/// do not write one file: each writes at its own offsets, and the file would hold their
/// audio mixed block by block, whatever paths name it (`out.wav` and `./out.wav`, a link).
/// Held from a writer's open to its close; any graph of the process counts.
package enum FilesBeingWritten {
    private static let held = Locked<Set<FilesBeingRead.Identity>>([])

    /// What claiming the file open at a descriptor gave.
    package enum Claim {
        /// The writer's hold on a regular file, to give back at close.
        case held(FilesBeingRead.Identity)
        /// Not a regular file (`/dev/null`, `/dev/full`): any number may write it.
        case device
        /// Another writer holds it.
        case taken
    }

    /// Claims the file open at `fd` for one writer.
    package static func claim(_ fd: Int32) -> Claim {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .device }
        let id = FilesBeingRead.Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        return held.withLock { $0.insert(id).inserted } ? .held(id) : .taken
    }

    /// The writer of `id` has closed it.
    package static func release(_ id: FilesBeingRead.Identity) {
        _ = held.withLock { $0.remove(id) }
    }
}
