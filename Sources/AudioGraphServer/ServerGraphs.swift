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
    /// Graphs left out, with why (logged at start-up).
    public let skipped: [String]

    /// Loads the folder. Throws when it has no usable graph at all.
    public init(folder: String) throws {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        var entries: [String: Entry] = [:]
        var skipped: [String] = []
        for f in files {
            let path = (folder as NSString).appendingPathComponent(f)
            do {
                var g = try GraphFile.load(path)
                guard let asr = g.nodes.first(where: { $0.type == "recognizer" }) else { continue }
                try GraphEdits.stream(rate: 16000, channels: 1, in: &g, registry: .builtin)
                // A session's audio comes from and goes to the client: no devices, no playback.
                if let device = g.nodes.first(where: { ["pulse-source", "pulse-sink", "speech-synth"].contains($0.type) }) {
                    skipped.append("\(f): node \"\(device.id)\" is a \(device.type) (a server session has no devices or speech of its own)")
                    continue
                }
                _ = try GraphValidator.validate(g, registry: .builtin).get()
                var keyphrase: String?
                if case .string(let k)? = asr.params["keyphrase"] { keyphrase = k }
                let name = String(f.dropLast(5))
                entries[name] = Entry(name: name, description: Self.description(path), graph: try GraphFile.load(path), keyphrase: keyphrase)
            } catch {
                skipped.append("\(f): \(error)")
            }
        }
        guard !entries.isEmpty else {
            throw ServerError("--graphs \(folder): no graph with a recognizer there" + (skipped.isEmpty ? "" : " (\(skipped.joined(separator: "; ")))"))
        }
        self.entries = entries
        self.skipped = skipped
    }

    /// A graph file's `description` text ("" without one).
    static func description(_ path: String) -> String {
        let json = FileManager.default.contents(atPath: path).flatMap { try? JSONSerialization.jsonObject(with: $0) }
        return (json as? [String: Any])?["description"] as? String ?? ""
    }

    /// The names, sorted.
    public var names: [String] { entries.keys.sorted() }
}
