/// What an acoustic model's `mdef` defines: its phones and how many senones and transition
/// matrices the other files must provide. Read from PocketSphinx's binary form (`BMDF`) or
/// SphinxTrain's text form (`0.3`), checking every index PocketSphinx would follow, since a
/// damaged `mdef` otherwise ends the process or makes it read out of bounds.
struct ModelDefinition {
    /// Context-independent phones, the alphabet of the dictionary's pronunciations.
    var phones: [String]
    var senones: Int
    var matrices: Int
    /// Emitting states per phone (0 when phones differ).
    var emittingStates: Int

    init(_ path: String) throws(ModelFileProblem) {
        var r = try ModelFileReader(path)
        self = try Self(&r)
    }

    /// Reads a definition from `r` (its whole file).
    init(_ r: inout ModelFileReader) throws(ModelFileProblem) {
        guard r.bytes.count >= 4 else { throw r.problem("is \(r.bytes.count) bytes: empty or truncated") }
        let mark = try r.uint32("format mark")
        if mark == 0x4644_4D42 || mark == 0x424D_4446 {
            r.swapped = mark == 0x424D_4446
            self = try Self.binary(&r)
        } else {
            r.offset = 0
            self = try Self.text(&r)
        }
    }

    private init(phones: [String], senones: Int, matrices: Int, emittingStates: Int) {
        self.phones = phones
        self.senones = senones
        self.matrices = matrices
        self.emittingStates = emittingStates
    }

    private static func binary(_ r: inout ModelFileReader) throws(ModelFileProblem) -> ModelDefinition {
        let version = try r.int32("version")
        guard (0...1).contains(version) else { throw r.problem("binary format version \(version), PocketSphinx reads 1: damaged or too new") }
        let descriptionLength = try r.int32("header length")
        try r.skip(descriptionLength, "format description")
        func count(_ what: String, _ range: ClosedRange<Int>) throws(ModelFileProblem) -> Int {
            let v = try r.int32(what)
            guard range.contains(v) else { throw r.problem("\(what) is \(v), expected \(range.lowerBound)...\(range.upperBound): damaged") }
            return v
        }
        let ciPhones = try count("phone count", 1...255)
        let allPhones = try count("triphone count", ciPhones...Int(Int32.max))
        let emitting = try count("emitting states per phone", 0...64)
        let ciSenones = try count("context-independent senone count", 1...Int(Int32.max))
        let senones = try count("senone count", ciSenones...Int(Int32.max))
        let matrices = try count("transition matrix count", 1...32766)
        let sequences = try count("senone sequence count", 1...Int(Int32.max))
        _ = try count("context length", 0...16)
        let treeNodes = try count("context tree size", 0...Int(Int32.max))
        _ = try r.int32("silence phone")

        var phones: [String] = []
        let namesStart = r.offset
        for i in 0..<ciPhones {
            let start = r.offset
            let end = r.bytes.withUnsafeBytes { raw -> Int? in
                var j = start
                while j < raw.count, raw[j] != 0 { j += 1 }
                return j < raw.count ? j : nil
            }
            guard let end, end > start, end - start <= 32 else {
                throw r.problem("phone \(i)'s name is missing or unterminated: truncated or damaged")
            }
            let name = String(decoding: r.bytes[r.bytes.startIndex + start ..< r.bytes.startIndex + end], as: UTF8.self)
            guard name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw r.problem("phone \(i)'s name is not printable: damaged")
            }
            phones.append(name)
            r.offset = end + 1
        }
        guard phones.contains("SIL") else { throw r.problem("defines no silence phone SIL: not a PocketSphinx acoustic model") }
        r.offset = namesStart + ((r.offset - namesStart + 3) & ~3)

        // Context tree: (int16 context phone, int16 children, int32 first child or phone).
        let treeStart = r.offset
        try r.skip(treeNodes * 8, "context tree")
        for i in 0..<treeNodes {
            let o = treeStart + 8 * i
            let children = Int(r.int16(at: o + 2)), link = Int(r.int32(at: o + 4))
            if children > 0 {
                guard link >= 0, link + children <= treeNodes else { throw r.problem("context tree node \(i) points outside the tree: damaged") }
            } else if children == 0 {
                guard link >= -1, link < allPhones else { throw r.problem("context tree node \(i) names phone \(link) of \(allPhones): damaged") }
            } else {
                throw r.problem("context tree node \(i) has \(children) children: damaged")
            }
        }
        // Phones: (int32 senone sequence, int32 transition matrix, 4 attribute bytes).
        let phoneStart = r.offset
        try r.skip(allPhones * 12, "phone table")
        for i in 0..<allPhones {
            let sequence = Int(r.int32(at: phoneStart + 12 * i)), matrix = Int(r.int32(at: phoneStart + 12 * i + 4))
            guard (0..<sequences).contains(sequence) else { throw r.problem("phone \(i) uses senone sequence \(sequence) of \(sequences): damaged") }
            guard (0..<matrices).contains(matrix) else { throw r.problem("phone \(i) uses transition matrix \(matrix) of \(matrices): damaged") }
        }
        let stateCount = try r.int32("senone sequence length")
        guard emitting == 0 || stateCount == sequences * emitting else {
            throw r.problem("senone sequences hold \(stateCount) states, expected \(sequences) x \(emitting): damaged")
        }
        let statesStart = r.offset
        try r.skip(stateCount * 2, "senone sequences")
        for i in 0..<stateCount {
            let s = Int(UInt16(bitPattern: r.int16(at: statesStart + 2 * i)))
            guard s < senones else { throw r.problem("senone sequence entry \(i) is senone \(s) of \(senones): damaged") }
        }
        if emitting == 0 { try r.skip(sequences, "senone sequence lengths") }
        return ModelDefinition(phones: phones, senones: senones, matrices: matrices, emittingStates: emitting)
    }

    private static func text(_ r: inout ModelFileReader) throws(ModelFileProblem) -> ModelDefinition {
        var lineNumber = 0
        func nextLine() -> [Substring]? {
            while let line = r.line() {
                lineNumber += 1
                let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
                if words.isEmpty || words[0].hasPrefix("#") { continue }
                return words
            }
            return nil
        }
        guard let version = nextLine(), version == ["0.3"] else {
            throw r.problem("is neither a binary model definition (BMDF) nor a text one (version 0.3): damaged or the wrong file")
        }
        var counts: [String: Int] = [:]
        for name in ["n_base", "n_tri", "n_state_map", "n_tied_state", "n_tied_ci_state", "n_tied_tmat"] {
            guard let words = nextLine(), words.count == 2, words[1] == name, let n = Int(words[0]), n >= 0 else {
                throw r.problem("line \(lineNumber): expected \"<count> \(name)\": damaged")
            }
            counts[name] = n
        }
        let base = counts["n_base"]!, tri = counts["n_tri"]!, senones = counts["n_tied_state"]!
        let matrices = counts["n_tied_tmat"]!
        guard base > 0, base + tri > 0, counts["n_state_map"]! % (base + tri) == 0 else {
            throw r.problem("its counts do not fit together (n_state_map is not a multiple of the phone count): damaged")
        }
        let states = counts["n_state_map"]! / (base + tri) - 1
        var phones: [String] = []
        for i in 0..<(base + tri) {
            guard let w = nextLine() else { throw r.problem("ends after \(i) of \(base + tri) phones: truncated") }
            guard w.count == 6 + states + 1, w.last == "N", let matrix = Int(w[5]), (0..<matrices).contains(matrix) else {
                throw r.problem("line \(lineNumber): not a phone line of \(states) states over \(matrices) transition matrices: damaged")
            }
            for s in w[6..<(6 + states)] {
                guard let id = Int(s), (0..<senones).contains(id) else {
                    throw r.problem("line \(lineNumber): senone \(s) is not one of the model's \(senones): damaged")
                }
            }
            if i < base { phones.append(String(w[0])) }
        }
        guard phones.contains("SIL") else { throw r.problem("defines no silence phone SIL: not a PocketSphinx acoustic model") }
        return ModelDefinition(phones: phones, senones: senones, matrices: matrices, emittingStates: states)
    }
}

extension ModelFileReader {
    /// A 16-bit value at `offset` (already bounds-checked by the caller), in the file's byte order.
    func int16(at offset: Int) -> Int16 {
        let raw = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self) }
        return Int16(bitPattern: swapped ? raw.byteSwapped : raw)
    }

    /// A 32-bit value at `offset` (already bounds-checked by the caller), in the file's byte order.
    func int32(at offset: Int) -> Int32 {
        let raw = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
        return Int32(bitPattern: swapped ? raw.byteSwapped : raw)
    }
}
