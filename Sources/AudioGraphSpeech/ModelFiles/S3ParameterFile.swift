/// A SphinxTrain binary parameter file, the form of an acoustic model's `means`,
/// `variances`, `mixture_weights` and `transition_matrices`: an `s3` text header up to
/// `endhdr` (or the older form: a version line and comments up to `*end_comment*`), a
/// byte-order word (0x11223344 as written), int32 counts, float32 values, and with
/// `chksum0` in the header a checksum over every count and value.
///
/// PocketSphinx ends the process on most faults in these files; reading one through this
/// type first turns each into a ``ModelFileProblem``.
struct S3ParameterFile {
    private var reader: ModelFileReader
    private let hasChecksum: Bool
    private var checksum: UInt32 = 0

    init(_ path: String) throws(ModelFileProblem) {
        reader = try ModelFileReader(path)
        guard reader.bytes.count > 0 else { throw reader.problem("is empty") }
        var checksummed = false
        if reader.line(maxLength: 16) == "s3" {
            var lineNumber = 1
            while true {
                lineNumber += 1
                guard let line = reader.line() else {
                    throw reader.problem("header has no \"endhdr\" line: truncated or damaged")
                }
                let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
                guard let name = words.first else {
                    throw reader.problem("header line \(lineNumber) is blank: damaged")
                }
                if name == "endhdr" { break }
                if name.hasPrefix("#") { continue }
                guard words.count >= 2 else {
                    throw reader.problem("header line \(lineNumber) (\"\(name.prefix(40))\") has no value: damaged")
                }
                if name == "chksum0" { checksummed = true }
            }
        } else {
            // The older form: its first line is the version, then comments up to *end_comment*.
            reader.offset = 0
            var found = false
            while let line = reader.line(), reader.offset < 65536 {
                if line == "*end_comment*" {
                    found = true
                    break
                }
            }
            guard found else {
                throw reader.problem("is not a SphinxTrain parameter file (no \"s3\" header, no \"*end_comment*\"): damaged or the wrong file")
            }
        }
        hasChecksum = checksummed
        let mark = try reader.uint32("byte-order mark")
        if mark == 0x1122_3344 {
            reader.swapped = false
        } else if mark.byteSwapped == 0x1122_3344 {
            reader.swapped = true
        } else {
            throw reader.problem("bad byte-order mark 0x\(String(mark, radix: 16)) after the header (expected 0x11223344): damaged")
        }
    }

    func problem(_ message: String) -> ModelFileProblem { reader.problem(message) }

    /// A count, which must lie in `range`.
    mutating func count(_ what: String, in range: ClosedRange<Int>) throws(ModelFileProblem) -> Int {
        let raw = try reader.uint32(what)
        accumulate(raw)
        let value = Int(Int32(bitPattern: raw))
        guard range.contains(value) else {
            throw problem("\(what) is \(value), expected \(range.lowerBound)...\(range.upperBound): damaged")
        }
        return value
    }

    /// `n` float32 values, all finite.
    mutating func values(_ n: Int, _ what: String) throws(ModelFileProblem) {
        let start = reader.offset
        try reader.skip(n * 4, what)
        var sum = checksum
        let swapped = reader.swapped
        let firstBad = reader.bytes.withUnsafeBytes { raw -> Int? in
            var bad: Int?
            for i in 0..<n {
                var v = raw.loadUnaligned(fromByteOffset: start + 4 * i, as: UInt32.self)
                if swapped { v = v.byteSwapped }
                sum = (sum << 20 | sum >> 12) &+ v
                if bad == nil && v & 0x7F80_0000 == 0x7F80_0000 { bad = i }
            }
            return bad
        }
        checksum = sum
        if let firstBad {
            throw problem("\(what): value \(firstBad) of \(n) is not a number (NaN or infinite): damaged")
        }
    }

    /// Checks the checksum, if the file has one, and that nothing follows the values.
    mutating func finish() throws(ModelFileProblem) {
        if hasChecksum {
            let stored = try reader.uint32("checksum")
            guard stored == checksum else {
                throw problem("checksum mismatch (file says \(hex(stored)), contents give \(hex(checksum))): damaged")
            }
        }
        guard reader.atEnd else {
            throw problem("\(reader.remaining) bytes follow the values the header announces: damaged or the wrong file")
        }
    }

    private mutating func accumulate(_ v: UInt32) { checksum = (checksum << 20 | checksum >> 12) &+ v }
    private func hex(_ v: UInt32) -> String { "0x" + String(v, radix: 16) }
}

extension S3ParameterFile {
    /// Dimensions of a Gaussian parameter file (`means`, `variances`).
    struct Gaussians: Equatable {
        var codebooks: Int, streams: Int, densities: Int, lengths: [Int]
    }

    /// Reads `means` or `variances` whole.
    static func gaussians(_ path: String) throws(ModelFileProblem) -> Gaussians {
        var f = try S3ParameterFile(path)
        let codebooks = try f.count("codebook count", in: 1...1_000_000)
        let streams = try f.count("feature stream count", in: 1...64)
        let densities = try f.count("densities per codebook", in: 1...65536)
        var lengths: [Int] = []
        for i in 0..<streams { lengths.append(try f.count("length of feature stream \(i)", in: 1...4096)) }
        let total = codebooks * densities * lengths.reduce(0, +)
        let n = try f.count("value count", in: 0...Int(Int32.max))
        guard n == total else {
            throw f.problem("holds \(n) values where its dimensions give \(codebooks) x \(densities) x \(lengths.reduce(0, +)) = \(total): damaged")
        }
        try f.values(n, "values")
        try f.finish()
        return Gaussians(codebooks: codebooks, streams: streams, densities: densities, lengths: lengths)
    }

    /// Reads `transition_matrices` whole: how many matrices and emitting states each has.
    static func transitions(_ path: String) throws(ModelFileProblem) -> (matrices: Int, states: Int) {
        var f = try S3ParameterFile(path)
        let matrices = try f.count("matrix count", in: 1...32766)
        let from = try f.count("source state count", in: 1...64)
        let to = try f.count("target state count", in: 1...65)
        guard to == from + 1 else {
            throw f.problem("matrices are \(from) x \(to); PocketSphinx needs N x N+1: damaged or not a transition file")
        }
        let n = try f.count("value count", in: 0...Int(Int32.max))
        guard n == matrices * from * to else {
            throw f.problem("holds \(n) values where its dimensions give \(matrices) x \(from) x \(to): damaged")
        }
        try f.values(n, "values")
        try f.finish()
        return (matrices, from)
    }

    /// Reads `mixture_weights` whole: senones, streams and densities.
    static func mixtureWeights(_ path: String) throws(ModelFileProblem) -> (senones: Int, streams: Int, densities: Int) {
        var f = try S3ParameterFile(path)
        let senones = try f.count("senone count", in: 1...10_000_000)
        let streams = try f.count("feature stream count", in: 1...64)
        let densities = try f.count("densities per senone", in: 1...65536)
        let n = try f.count("value count", in: 0...Int(Int32.max))
        guard n == senones * streams * densities else {
            throw f.problem("holds \(n) values where its dimensions give \(senones) x \(streams) x \(densities): damaged")
        }
        try f.values(n, "values")
        try f.finish()
        return (senones, streams, densities)
    }
}
