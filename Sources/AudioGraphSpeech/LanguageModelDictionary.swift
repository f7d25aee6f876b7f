import AudioGraphCore
import CPocketSphinx
import Foundation

/// The pronunciation dictionary cut to the words of a language model, kept in a cache
/// folder, so a decoder over that model loads the ~79k entries it can use rather than all
/// 134k of Debian's dictionary: 50 ms and 14 MB less for PocketSphinx's load. A language-model
/// search never hypothesises a word the model lacks, so the results are the same (byte for
/// byte on the corpus).
///
/// The cut is made once, after the first load over the full dictionary, and named by both
/// files' paths, sizes and modification times (an edited file gets a new cut). Its first
/// line records how many of the model's words the dictionary cannot pronounce, so later loads
/// need not count them again. Written under a temporary name and renamed into place; a folder
/// that cannot be written just means no cut.
enum LanguageModelDictionary {
    /// How many of a language model's words the dictionary can pronounce.
    struct Coverage: Equatable {
        var missing: Int
        var total: Int
        var examples: [String]
    }

    /// The cut for `dict` and `lm`, if made before, and the model's coverage it records.
    static func cached(dict: String, lm: String, in folder: String? = CacheFolder.path) -> (path: String, coverage: Coverage)? {
        // Only a file: opening a pipe left there waits for a writer, for ever.
        guard let path = path(dict: dict, lm: lm, in: folder), PathKind(path) == .regular,
              let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        // Whole only with its last line (a cut is renamed into place whole; this guards the rest).
        guard let size = try? handle.seekToEnd(), size > UInt64(endLine.count),
              (try? handle.seek(toOffset: size - UInt64(endLine.count))) != nil,
              let tail = try? handle.read(upToCount: endLine.count), tail == endLine,
              (try? handle.seek(toOffset: 0)) != nil,
              let head = try? handle.read(upToCount: 4096),
              let line = String(decoding: head, as: UTF8.self).split(separator: "\n").first else { return nil }
        // ";; audiograph coverage MISSING TOTAL EXAMPLE,EXAMPLE"
        let fields = line.split(separator: " ")
        guard fields.count >= 5, fields[0] == ";;", fields[1] == "audiograph", fields[2] == "coverage",
              let missing = Int(fields[3]), let total = Int(fields[4]) else { return nil }
        let examples = fields.count > 5 ? fields[5].split(separator: ",").map(String.init) : []
        return (path, Coverage(missing: missing, total: total, examples: examples))
    }

    /// Makes the cut of `dict` to `words` (the model's), recording `coverage`. Any thread.
    static func store(dict: String, lm: String, words: Set<String>, coverage: Coverage, in folder: String? = CacheFolder.path) {
        guard let path = path(dict: dict, lm: lm, in: folder), let folder,
              (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil,
              let data = FileManager.default.contents(atPath: dict) else { return }
        var out = Data(";; audiograph coverage \(coverage.missing) \(coverage.total) \(coverage.examples.joined(separator: ","))\n".utf8)
        out.reserveCapacity(data.count)
        PronunciationDictionary.forEachEntry(data) { word, line in
            if words.contains(String(decoding: word, as: UTF8.self)) {
                out.append(line)
                out.append(0x0A)
            }
        }
        out.append(endLine)
        // A name of its own: sessions in one process may cut the same dictionary at once.
        let temporary = path + ".\(UUID().uuidString).partial"
        guard FileManager.default.createFile(atPath: temporary, contents: out) else { return }
        if rename(temporary, path) != 0 { unlink(temporary) }
    }

    /// The cut's last line (PocketSphinx skips lines starting ";;").
    static let endLine = Data(";; audiograph end\n".utf8)

    /// Where the cut of `dict` to `lm` is kept.
    static func path(dict: String, lm: String, in folder: String? = CacheFolder.path) -> String? {
        guard let folder else { return nil }
        guard let d = FileStamp.of(dict), let l = FileStamp.of(lm) else { return nil }
        let name = ((dict as NSString).lastPathComponent as NSString).deletingPathExtension
        return folder + "/" + name + "-" + FileStamp.digest(d + "\n" + l) + ".dict"
    }
}

extension PocketSphinxDecoder {
    /// The words of the main search's language model (not `<s>`, `</s>`, `<UNK>`) and how
    /// many of them the dictionary cannot pronounce (PocketSphinx leaves those out of the
    /// search without a word), with the first few.
    func languageModelWords(examples: Int = 5) -> (words: Set<String>, coverage: LanguageModelDictionary.Coverage) {
        // The search's model is a set mapped onto the dictionary's words; its member keeps the model's own.
        guard let set = ps_get_lm(decoder, Self.mainSearch), let lm = ngram_model_set_lookup(set, "default"),
              let counts = ngram_model_get_counts(lm) else { return ([], .init(missing: 0, total: 0, examples: [])) }
        var words = Set<String>()
        words.reserveCapacity(Int(counts[0]))
        var coverage = LanguageModelDictionary.Coverage(missing: 0, total: 0, examples: [])
        for id in 0..<Int32(counts[0]) {
            guard let w = ngram_word(lm, id), w[0] != 0x3C /* "<": <s>, </s>, <UNK> */ else { continue }
            coverage.total += 1
            words.insert(String(cString: w))
            if let pron = ps_lookup_word(decoder, w) {
                free(pron)
            } else {
                coverage.missing += 1
                if coverage.examples.count < examples { coverage.examples.append(String(cString: w)) }
            }
        }
        return (words, coverage)
    }
}
