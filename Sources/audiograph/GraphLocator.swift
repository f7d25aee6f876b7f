import Foundation

/// Finds a graph given by name (`audiograph run dictation`) when no such file is in the
/// working directory: in `$AUDIOGRAPH_GRAPHS` (folders separated by ':'), beside the
/// installed binary (`PREFIX/share/audiograph/graphs`, as `Tools/install` lays it out), then
/// in /usr/local and /usr.
enum GraphLocator {
    static var folders: [String] {
        var all = (ProcessInfo.processInfo.environment["AUDIOGRAPH_GRAPHS"] ?? "").split(separator: ":").map(String.init)
        if let exe = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            all.append(exe.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("share/audiograph/graphs").path)
        }
        all += ["/usr/local/share/audiograph/graphs", "/usr/share/audiograph/graphs"]
        var seen = Set<String>()
        return all.filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    /// `argument` itself when it names a file (or a path); else the installed graph of that
    /// name; else `argument` unchanged (loading then reports it missing).
    static func resolve(_ argument: String) -> String {
        if FileManager.default.fileExists(atPath: argument) || argument.contains("/") { return argument }
        let name = argument.hasSuffix(".json") ? argument : argument + ".json"
        for folder in folders {
            let candidate = (folder as NSString).appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return argument
    }

    /// Installed graphs: name, description, folder.
    static func installed() -> [(name: String, description: String, folder: String)] {
        var out: [(String, String, String)] = []
        var names = Set<String>()
        for folder in folders {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for f in files.sorted() where f.hasSuffix(".json") {
                let name = String(f.dropLast(5))
                guard names.insert(name).inserted else { continue }
                let data = FileManager.default.contents(atPath: (folder as NSString).appendingPathComponent(f)) ?? Data()
                let text = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
                out.append((name, text?["description"] as? String ?? "", folder))
            }
        }
        return out
    }
}
