import AudioGraphCore
import Foundation

/// What is wrong with one model file, in words a user can act on. The caller adds the node,
/// the parameter that led to the file and the file's path.
struct ModelFileProblem: Error {
    var file: String
    var message: String
    init(_ file: String, _ message: String) {
        self.file = file
        self.message = message
    }
}

/// Reads a model file's bytes with every read bounds-checked: a damaged file is reported as
/// a ``ModelFileProblem``, never read past its end. Files are memory-mapped, not copied.
struct ModelFileReader {
    let path: String
    let bytes: Data
    /// Read position, from the start of the file.
    var offset = 0
    /// Whether 32- and 16-bit values are stored in the other byte order.
    var swapped = false

    init(_ path: String) throws(ModelFileProblem) {
        self.path = path
        // A pipe said "you don't have permission" (Foundation's words for a failed map).
        let kind = PathKind(path)
        if kind == .directory { throw ModelFileProblem(path, "is a directory, expected a file") }
        if let why = kind.fileProblem { throw ModelFileProblem(path, why) }
        do {
            bytes = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            throw ModelFileProblem(path, "cannot be read (\(FileFailure.reason(error)))")
        }
    }

    /// A reader over bytes already in memory (fuzzing, tests).
    init(path: String, bytes: Data) {
        self.path = path
        self.bytes = bytes
    }

    var remaining: Int { bytes.count - offset }
    var atEnd: Bool { offset >= bytes.count }

    func problem(_ message: String) -> ModelFileProblem { ModelFileProblem(path, message) }

    /// A 32-bit signed value in the file's byte order.
    mutating func int32(_ what: String) throws(ModelFileProblem) -> Int {
        Int(Int32(bitPattern: try uint32(what)))
    }

    mutating func uint32(_ what: String) throws(ModelFileProblem) -> UInt32 {
        guard remaining >= 4 else { throw problem("ends before its \(what) (\(bytes.count) bytes): truncated") }
        let raw = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
        offset += 4
        return swapped ? raw.byteSwapped : raw
    }

    /// Skips `count` bytes that must be there.
    mutating func skip(_ count: Int, _ what: String) throws(ModelFileProblem) {
        guard count >= 0, remaining >= count else {
            throw problem("ends inside its \(what) (needs \(count) bytes, \(remaining) left): truncated")
        }
        offset += count
    }

    /// The next line of text (without its newline), or nil at the end of the file.
    mutating func line(maxLength: Int = 16384) -> String? {
        guard !atEnd else { return nil }
        let start = offset
        let end = bytes.withUnsafeBytes { raw -> Int in
            var i = start
            while i < raw.count, raw[i] != 0x0A, i - start < maxLength { i += 1 }
            return i
        }
        offset = min(bytes.count, end + 1)
        return String(decoding: bytes[bytes.startIndex + start ..< bytes.startIndex + end], as: UTF8.self)
    }
}
