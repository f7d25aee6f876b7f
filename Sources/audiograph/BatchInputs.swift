import Foundation

/// The inputs of `audiograph batch`: files and folders expanded to sound files, a shard of
/// them, and where each one's results go.
struct BatchInputs {
    /// One input file and the path its results are written to, without extension.
    struct Input: Equatable {
        var path: String
        var output: String
    }

    /// Every input of the job (all shards), sorted by path.
    let all: [Input]

    /// File name extensions a folder is searched for (what `file-source` reads).
    static let extensions: Set<String> = ["wav", "wave", "flac", "ogg", "oga", "opus", "mp3", "aif", "aiff", "au"]

    /// The result files of one input, written in this order (the JSON lines last: an input
    /// is complete when every one of them is there).
    static let formats = ["srt", "vtt", "jsonl"]

    /// Expands `arguments` (files, and folders searched recursively for sound files) and
    /// names each input's results under `outputFolder`: a file's by its name, a folder's
    /// files by their path inside it. Two inputs with the same result name are an error.
    init(_ arguments: [String], outputFolder: String) throws(UsageError) {
        let fm = FileManager.default
        var inputs: [Input] = []
        for argument in arguments {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: argument, isDirectory: &isDir) else {
                throw UsageError("batch: \(argument): no such file or folder")
            }
            if !isDir.boolValue {
                let name = ((argument as NSString).lastPathComponent as NSString).deletingPathExtension
                inputs.append(Input(path: argument, output: Self.join(outputFolder, name)))
                continue
            }
            guard let walker = fm.enumerator(atPath: argument) else { throw UsageError("batch: \(argument): cannot read the folder") }
            var found = 0
            for case let relative as String in walker
            where Self.extensions.contains((relative as NSString).pathExtension.lowercased()) {
                // A folder named like a sound file is searched, not read; a pipe or device so
                // named is an input that fails with the file source's error.
                var isFolder: ObjCBool = false
                if fm.fileExists(atPath: Self.join(argument, relative), isDirectory: &isFolder), isFolder.boolValue { continue }
                found += 1
                inputs.append(Input(path: Self.join(argument, relative),
                                    output: Self.join(outputFolder, (relative as NSString).deletingPathExtension)))
            }
            if found == 0 {
                throw UsageError("batch: \(argument): no sound files in the folder (looked for \(Self.extensions.sorted().joined(separator: ", ")))")
            }
        }
        guard !inputs.isEmpty else { throw UsageError("batch: missing input files or folders") }
        inputs.sort { $0.path < $1.path }
        var seen: [String: String] = [:]
        for i in inputs {
            if let other = seen[i.output] {
                if other == i.path { throw UsageError("batch: \(i.path) is given twice") }
                let sameFolder = (other as NSString).deletingPathExtension == (i.path as NSString).deletingPathExtension
                throw UsageError("batch: \(other) and \(i.path) would both write \(i.output).jsonl ("
                                 + (sameFolder ? "they differ only in their extension: move one of them away, or give the files to take by name"
                                               : "give their folder instead, or run them apart") + ")")
            }
            seen[i.output] = i.path
        }
        all = inputs
    }

    /// Shard `index` of `count` (0-based): every `count`-th input of the sorted list from
    /// `index` on. The shards of one list are disjoint and together hold every input.
    func shard(_ index: Int, of count: Int) -> [Input] {
        all.enumerated().filter { $0.offset % count == index }.map(\.element)
    }

    /// Parses `--shard i/n` (0 ≤ i < n).
    static func parseShard(_ text: String) throws(UsageError) -> (index: Int, count: Int) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, (0..<n).contains(i) else {
            throw UsageError("--shard: expected INDEX/COUNT with 0 <= INDEX < COUNT (e.g. 0/4 ... 3/4), got \"\(text)\"")
        }
        return (i, n)
    }

    /// Whether every result file of `input` is there (it was transcribed before).
    static func isComplete(_ input: Input) -> Bool {
        formats.allSatisfy { FileManager.default.fileExists(atPath: input.output + "." + $0) }
    }

    private static func join(_ folder: String, _ name: String) -> String {
        folder == "." ? name : folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}
