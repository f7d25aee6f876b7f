import Foundation
/// Checks a pronunciation dictionary (`dict`, or the model's `noisedict`) as PocketSphinx
/// reads it: one word a line followed by its phones, separated by spaces or tabs; blank
/// lines and lines starting `##` or `;;` are skipped. PocketSphinx drops a line it cannot
/// use with a log message nobody sees and accepts an empty file; here each is an error
/// naming the file and line, since a dictionary that lost words recognises other words.
enum PronunciationDictionary {
    /// The words of a dictionary file (without pronunciation variants); empty if unreadable.
    static func words(_ path: String) -> Set<String> {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        var words = Set<String>()
        words.reserveCapacity(140_000)
        forEachEntry(data) { word, _ in words.insert(String(decoding: word, as: UTF8.self)) }
        return words
    }

    /// The first pronunciation a dictionary file gives each of `words` (those it has).
    static func pronunciations(of words: Set<String>, in path: String) -> [String: [String]] {
        guard !words.isEmpty, let data = FileManager.default.contents(atPath: path) else { return [:] }
        var found: [String: [String]] = [:]
        forEachEntry(data) { word, line in
            let w = String(decoding: word, as: UTF8.self)
            guard words.contains(w), found[w] == nil, line.count == word.count || line[word.count] != 0x28 else { return }
            let phones = String(decoding: UnsafeBufferPointer(rebasing: line[word.count...]), as: UTF8.self)
            found[w] = phones.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        }
        return found
    }

    /// Calls `body` with each non-empty line of a dictionary's bytes (without its newline)
    /// and the word it starts with: up to a space, a tab or a variant's "(". Comment lines
    /// come through too (their "word" starts with "##" or ";;").
    static func forEachEntry(_ data: Data, _ body: (_ word: UnsafeBufferPointer<UInt8>, _ line: UnsafeBufferPointer<UInt8>) -> Void) {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            for i in 0...bytes.count where i == bytes.count || bytes[i] == 0x0A {
                defer { start = i + 1 }
                var end = start
                while end < i && bytes[end] != 0x20 && bytes[end] != 0x09 && bytes[end] != 0x28 { end += 1 }
                if end > start {
                    body(UnsafeBufferPointer(rebasing: bytes[start..<end]), UnsafeBufferPointer(rebasing: bytes[start..<i]))
                }
            }
        }
    }

    /// The number of words; throws on the first line PocketSphinx could not use.
    @discardableResult
    static func check(_ path: String, phones: [String], allowEmpty: Bool = false) throws(ModelFileProblem) -> Int {
        try check(ModelFileReader(path), phones: phones, allowEmpty: allowEmpty)
    }

    /// Checks a dictionary's bytes.
    @discardableResult
    static func check(_ reader: ModelFileReader, phones: [String], allowEmpty: Bool = false) throws(ModelFileProblem) -> Int {
        let known = phones.compactMap(packed).sorted()
        var words = 0
        var line = 0
        let problem: (line: Int, message: String)? = reader.bytes.withUnsafeBytes { raw -> (Int, String)? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var i = 0
            let n = bytes.count
            while i < n {
                line += 1
                let start = i
                while i < n, bytes[i] != 0x0A { i += 1 }
                let end = i
                i += 1
                if end - start >= 2, (bytes[start] == 0x23 && bytes[start + 1] == 0x23) || (bytes[start] == 0x3B && bytes[start + 1] == 0x3B) {
                    continue
                }
                // Fields of the line; the first is the word, the rest its phones.
                var field = 0
                var j = start
                while j < end {
                    let b = bytes[j]
                    if b == 0x20 || b == 0x09 || b == 0x0D { j += 1; continue }
                    let fieldStart = j  // a control character here is caught below
                    while j < end, bytes[j] != 0x20, bytes[j] != 0x09, bytes[j] != 0x0D {
                        if bytes[j] < 0x20 || bytes[j] == 0x7F {
                            return (line, "holds a control character (byte 0x\(String(bytes[j], radix: 16))): not a text dictionary, or damaged")
                        }
                        j += 1
                    }
                    if field == 0 {
                        let word = UnsafeBufferPointer(rebasing: bytes[fieldStart..<j])
                        guard word.allSatisfy({ $0 < 0x80 }) || String(validating: word, as: UTF8.self) != nil else {
                            return (line, "the word is not valid UTF-8: not a text dictionary, or damaged")
                        }
                    } else {
                        let phone = UnsafeBufferPointer(rebasing: bytes[fieldStart..<j])
                        guard let key = packed(phone), contains(known, key) else {
                            let text = String(decoding: phone, as: UTF8.self)
                            let word = firstField(bytes, start, end)
                            return (line, "\"\(word)\": phone \"\(text.prefix(20))\" is not in the acoustic model (its phones: \(phones.joined(separator: " ")))")
                        }
                    }
                    field += 1
                }
                if field == 1 {
                    return (line, "\"\(firstField(bytes, start, end))\" has no pronunciation (expected a word, then its phones)")
                }
                if field > 1 { words += 1 }
            }
            return nil
        }
        if let problem { throw reader.problem("line \(problem.line): \(problem.message)") }
        if words == 0 && !allowEmpty { throw reader.problem("holds no words") }
        return words
    }

    /// Binary search: a model has a few dozen phones, a dictionary a million phone names.
    private static func contains(_ sorted: [UInt64], _ key: UInt64) -> Bool {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low < sorted.count && sorted[low] == key
    }

    /// A phone name of up to 8 bytes as one integer (nil for longer ones: no model has them).
    private static func packed<C: Collection<UInt8>>(_ bytes: C) -> UInt64? {
        guard bytes.count <= 8 else { return nil }
        var v: UInt64 = 0
        for b in bytes { v = v << 8 | UInt64(b) }
        return v
    }

    private static func packed(_ s: String) -> UInt64? { packed(Array(s.utf8)) }

    private static func firstField(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        var j = start
        while j < end, bytes[j] == 0x20 || bytes[j] == 0x09 { j += 1 }
        let s = j
        while j < end, bytes[j] != 0x20, bytes[j] != 0x09, bytes[j] != 0x0D { j += 1 }
        return String(String(decoding: UnsafeBufferPointer(rebasing: bytes[s..<j]), as: UTF8.self).prefix(40))
    }
}
