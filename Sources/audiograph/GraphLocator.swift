import Foundation

/// Finds a graph given by name (`audiograph run dictation`) when no such file is in the
/// working directory: in `$AUDIOGRAPH_GRAPHS` (folders separated by ':'), in the working
/// directory's `graphs/` (a repository root), beside the installed binary
/// (`PREFIX/share/audiograph/graphs`, as `Tools/install` lays it out), in the repository an
/// uninstalled build was made in (`REPO/.build/…/audiograph` finds `REPO/Graphs`), then in
/// /usr/local and /usr.
enum GraphLocator {
    static var folders: [String] {
        var all = (ProcessInfo.processInfo.environment["AUDIOGRAPH_GRAPHS"] ?? "").split(separator: ":").map(String.init)
        all.append(FileManager.default.currentDirectoryPath + "/graphs")
        if let exe = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            all.append(exe.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("share/audiograph/graphs").path)
            if let repository = buildRepository(of: exe) { all.append(repository + "/Graphs") }
        }
        all += ["/usr/local/share/audiograph/graphs", "/usr/share/audiograph/graphs"]
        var seen = Set<String>()
        return all.filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    /// The package a SwiftPM build folder belongs to: the folder holding the `.build` that
    /// `exe` lies in (`REPO/.build/<triple>/<configuration>/audiograph`), if it has a
    /// `Package.swift`; nil for a binary anywhere else.
    static func buildRepository(of exe: URL) -> String? {
        let parts = exe.pathComponents
        guard let build = parts.lastIndex(of: ".build"), build > 0 else { return nil }
        let repository = NSString.path(withComponents: Array(parts[..<build]))
        return FileManager.default.fileExists(atPath: repository + "/Package.swift") ? repository : nil
    }

    /// `argument` itself when it names a file (or a path); else the found graph of that
    /// name; else nil.
    static func find(_ argument: String) -> String? {
        if FileManager.default.fileExists(atPath: argument) || argument.contains("/") { return argument }
        let name = argument.hasSuffix(".json") ? argument : argument + ".json"
        for folder in folders {
            let candidate = (folder as NSString).appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The graphs found by name (the first of each name): name, description, folder.
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
