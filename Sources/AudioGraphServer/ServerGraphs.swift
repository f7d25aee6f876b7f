import AudioGraph
import Foundation

/// The graph files sessions are built from: every graph of the `--graphs` folder that has a
/// recognizer, by name (`transcribe`, `dictation`, `command`, `wakeword`, ...). Each is loaded
/// and checked once at start-up; a session takes a copy, puts a `stream-source` in place of
/// its input and applies the client's options.
public struct ServerGraphs: Sendable {
    /// A graph a client may ask for.
    public struct Entry: Sendable {
        /// Its file name without `.json`.
        public var name: String
        /// Its `description`.
        public var description: String
        /// The graph, as loaded.
        public var graph: GraphDescription
        /// Its recognizer's key phrase, for a wake-word graph.
        public var keyphrase: String?
    }

    /// By name.
    public let entries: [String: Entry]
    /// Graphs left out, with why (logged at start-up), as `FILE: why`.
    public let skipped: [String]
    /// Why each graph of the folder with a recognizer is not served, by name: a client asking
    /// for one is told this rather than that there is no such graph.
    public let leftOut: [String: String]
    /// Each `--set` given, with the graphs it changed (logged at start-up).
    public let settings: [(String, [String])]

    /// Loads the folder, applying `settings` (`NODE.PARAM=VALUE`, as `run --set`) to every
    /// graph with a node of that id. Throws when it has no usable graph at all, or for a
    /// setting that no graph takes or whose value its parameter refuses.
    public init(folder: String, settings: [String] = []) throws {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        var entries: [String: Entry] = [:]
        var skipped: [String] = []
        var leftOut: [String: String] = [:]
        var applied: [String: [String]] = [:]
        for f in files {
            let path = (folder as NSString).appendingPathComponent(f)
            do {
                var loaded = try GraphFile.load(path)
                var mine: [String] = []
                guard loaded.nodes.contains(where: { $0.type == "recognizer" }) else { continue }
                for s in settings where loaded.index(of: String(s.prefix { $0 != "." })) != nil {
                    do {
                        try GraphEdits.set(s, in: &loaded, registry: .builtin)
                        mine.append(s)
                    } catch {
                        throw ServerError("\(f): \(error.message)" + (error.suggestion.map { " (\($0))" } ?? ""))
                    }
                }
                let asr = loaded.nodes.first { $0.type == "recognizer" }!
                var g = loaded
                try GraphEdits.stream(rate: 16000, channels: 1, in: &g, registry: .builtin)
                // A session's audio comes from and goes to the client: no devices, no playback.
                if let device = g.nodes.first(where: { ["pulse-source", "pulse-sink", "speech-synth"].contains($0.type) }) {
                    let why = "node \"\(device.id)\" is a \(device.type) (a server session has no devices or speech of its own)"
                    skipped.append("\(f): \(why)")
                    leftOut[String(f.dropLast(5))] = why
                    continue
                }
                _ = try GraphValidator.validate(g, registry: .builtin).get()
                var keyphrase: String?
                if case .string(let k)? = asr.params["keyphrase"] { keyphrase = k }
                let name = String(f.dropLast(5))
                for s in mine { applied[s, default: []].append(name) }
                entries[name] = Entry(name: name, description: Self.description(path), graph: loaded, keyphrase: keyphrase)
            } catch let e as ServerError {
                throw e
            } catch {
                skipped.append("\(f): \(error)")
                leftOut[String(f.dropLast(5))] = "\(error)"
            }
        }
        if let unused = settings.first(where: { applied[$0] == nil }) {
            throw ServerError("--set \(unused): no graph served from \(folder) has a node \"\(unused.prefix { $0 != "." })\"")
        }
        guard !entries.isEmpty else {
            throw ServerError("--graphs \(folder): no graph with a recognizer there" + (skipped.isEmpty ? "" : " (\(skipped.joined(separator: "; ")))"))
        }
        self.entries = entries
        self.skipped = skipped
        self.leftOut = leftOut
        self.settings = settings.map { ($0, applied[$0] ?? []) }
    }

    /// A graph file's `description` text ("" without one).
    static func description(_ path: String) -> String {
        let json = FileManager.default.contents(atPath: path).flatMap { try? JSONSerialization.jsonObject(with: $0) }
        return (json as? [String: Any])?["description"] as? String ?? ""
    }

    /// The names, sorted.
    public var names: [String] { entries.keys.sorted() }
}
