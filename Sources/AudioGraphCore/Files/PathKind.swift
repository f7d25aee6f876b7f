import Foundation

/// What a path names, after its links: sound file readers and writers refuse what they cannot
/// seek in (a pipe's open waits for the other end for ever; a device is no file).
package enum PathKind: Equatable {
    case missing, regular, directory, pipe, socket
    /// A device, as named in an error ("a character device").
    case special(String)
    /// `stat` failed for another reason than a missing path (its words).
    case unreadable(String)

    package init(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            self = errno == ENOENT ? .missing : .unreadable(String(cString: strerror(errno)))
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFIFO: self = .pipe
        case S_IFCHR: self = .special("a character device")
        case S_IFBLK: self = .special("a block device")
        case S_IFSOCK: self = .socket
        default: self = .special("not a regular file")
        }
    }

    /// What is there, for an error: "a directory", "a pipe", "a character device".
    package var noun: String {
        switch self {
        case .missing: "nothing"
        case .regular: "a file"
        case .directory: "a directory"
        case .pipe: "a pipe"
        case .socket: "a socket"
        case .special(let name): name
        case .unreadable(let why): "unreadable (\(why))"
        }
    }

    /// Why what is there is no file to read, in an error's words, or nil when it is one:
    /// "no such file", "is a pipe, not a file".
    package var fileProblem: String? {
        switch self {
        case .regular: nil
        case .missing: "no such file"
        default: "is \(noun), not a file"
        }
    }
}
