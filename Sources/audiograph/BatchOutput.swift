import AudioGraphCore
import Foundation

/// `batch --output DIR`: checked, and made, before any input runs. An output that could not
/// be written was found only as each input finished: every input was transcribed, then
/// failed ("cannot write the results"), and a long job's hours of work with it.
enum BatchOutput {
    /// Makes `folder` (with its parents) if it is missing, or only checks it with `create`
    /// false (`--list` changes nothing); a usage error naming it if it is not a folder this
    /// process can write in.
    static func prepare(_ folder: String, create: Bool) throws(UsageError) {
        func refuse(_ why: String) -> UsageError { UsageError("batch: --output \(folder): \(why)") }
        let kind = PathKind(folder)
        switch kind {
        case .directory:
            guard access(folder, W_OK | X_OK) == 0 else { throw refuse("cannot write in it: \(String(cString: strerror(errno)))") }
        case .missing:
            guard create else { return }
            if let failure = makeFolders(folder) { throw refuse(failure) }
        case .regular: throw refuse("is a file, not a folder")
        case .pipe, .socket, .special: throw refuse("is \(kind.noun), not a folder")
        case .unreadable(let why): throw refuse(why)
        }
    }
}

extension BatchOutput {
    /// Makes `folder` and its missing parents with mkdir(2), for the system's own reason when
    /// one cannot be made (Foundation's error for it carries none); nil when it is a folder.
    static func makeFolders(_ folder: String) -> String? {
        var made = folder.hasPrefix("/") ? "/" : ""
        for part in folder.split(separator: "/") {
            made += (made.isEmpty || made.hasSuffix("/") ? "" : "/") + part
            if mkdir(made, 0o777) != 0 {
                guard errno == EEXIST else { return "cannot make the folder \(made): \(String(cString: strerror(errno)))" }
                guard PathKind(made) == .directory else { return "cannot make the folder \(made): a file of that name is there" }
            }
        }
        return nil
    }
}
