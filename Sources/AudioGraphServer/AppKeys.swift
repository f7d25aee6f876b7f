import AudioGraphCore
import Foundation

/// App ids and keys, as SpeechKit's apps have them (`--keys FILE`): one app a line,
/// `ID KEY [MAX-SESSIONS]`, `#` comments. A WebSocket client gives them as the query
/// parameters `app` and `key` (or the header `Authorization: Bearer ID:KEY`).
public struct AppKeys: Sendable {
    /// One app.
    public struct App: Sendable, Equatable {
        /// Its secret.
        public var key: String
        /// Sessions it may have at once (nil: only the server's limit).
        public var maxSessions: Int?
    }

    /// By app id.
    public let apps: [String: App]

    /// Reads `path`; throws ``ServerError`` naming the file and line of a mistake.
    public init(file path: String) throws {
        // A device or a pipe is no keys file (Foundation cannot read either: say what is there).
        let kind = PathKind(path)
        guard kind == .regular || kind == .missing else { throw ServerError("--keys \(path): is \(kind.noun), not a file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ServerError("--keys \(path): cannot read the file")
        }
        // Past a Windows editor's byte order mark (it had joined the first app's id).
        guard let text = TextBytes.utf8([UInt8](data)) else { throw ServerError("--keys \(path): \(TextBytes.notUTF8([UInt8](data)))") }
        try self.init(text: text, name: path)
    }

    /// Parses the text of a keys file (`name` is what errors call it).
    public init(text: String, name: String = "keys") throws {
        var apps: [String: App] = [:]
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            if fields.isEmpty { continue }
            guard fields.count == 2 || fields.count == 3 else {
                throw ServerError("\(name):\(n + 1): expected ID KEY [MAX-SESSIONS], got \(fields.count) fields")
            }
            var limit: Int?
            if fields.count == 3 {
                guard let l = Int(fields[2]), l > 0 else {
                    throw ServerError("\(name):\(n + 1): MAX-SESSIONS must be a whole number above 0, got \"\(fields[2])\"")
                }
                limit = l
            }
            guard apps[fields[0]] == nil else { throw ServerError("\(name):\(n + 1): app \"\(fields[0])\" is listed twice") }
            apps[fields[0]] = App(key: fields[1], maxSessions: limit)
        }
        guard !apps.isEmpty else { throw ServerError("\(name): no app listed (one a line: ID KEY [MAX-SESSIONS])") }
        self.apps = apps
    }

    /// The app `id` when `key` is its key (compared in constant time), else nil.
    public func check(id: String, key: String) -> App? {
        guard let app = apps[id] else { return nil }
        let a = Array(app.key.utf8), b = Array(key.utf8)
        var diff = a.count ^ b.count
        for i in 0..<max(a.count, b.count) { diff |= Int((i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)) }
        return diff == 0 ? app : nil
    }
}
