import Foundation

/// Foundation's file errors in a line: the system's reason (and the path, where given),
/// instead of the NSError's description ("Error Domain=NSCocoaErrorDomain Code=4 …").
package enum FileFailure {
    /// The system's words for why `error` happened ("No such file or directory"), or its
    /// own description when it carries none.
    package static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        // The underlying error is a Swift error on Linux (`as? NSError` does not take it).
        if let underlying = (ns.userInfo[NSUnderlyingErrorKey] as? any Error).map({ $0 as NSError }),
           underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return ns.localizedDescription
    }

    /// `PATH: reason` for a Foundation file error, or nil for any other error.
    package static func line(_ error: any Error) -> String? {
        let ns = error as NSError
        guard ns.domain == NSCocoaErrorDomain || ns.domain == NSPOSIXErrorDomain else { return nil }
        let path = ns.userInfo[NSFilePathErrorKey] as? String ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path
        return (path.map { "\($0): " } ?? "") + reason(error)
    }
}
