import Foundation

/// Writes small WAV files byte by byte for tests, so fixtures need no tool and test the
/// reader against an independent writer.
enum WAVFixture {
    /// Writes interleaved integer samples as `bits`-bit PCM.
    static func write(_ url: URL, rate: Int, channels: Int, bits: Int, samples: [Int32]) throws {
        var d = Data()
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { d.append(contentsOf: $0) } }
        let bytes = bits / 8
        let dataSize = samples.count * bytes
        d.append(contentsOf: Array("RIFF".utf8)); u32(36 + dataSize); d.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16); u16(1); u16(channels); u32(rate); u32(rate * channels * bytes); u16(channels * bytes); u16(bits)
        d.append(contentsOf: Array("data".utf8)); u32(dataSize)
        for s in samples {
            switch bits {
            case 8: d.append(UInt8(truncatingIfNeeded: s + 128))
            case 16: withUnsafeBytes(of: Int16(truncatingIfNeeded: s).littleEndian) { d.append(contentsOf: $0) }
            case 24:
                d.append(UInt8(truncatingIfNeeded: s)); d.append(UInt8(truncatingIfNeeded: s >> 8))
                d.append(UInt8(truncatingIfNeeded: s >> 16))
            default: withUnsafeBytes(of: s.littleEndian) { d.append(contentsOf: $0) }
            }
        }
        try d.write(to: url)
    }

    /// Writes mono 32-bit float samples (format tag 3) as they are: NaN, infinities and
    /// values past full scale included.
    static func writeFloat(_ url: URL, rate: Int, samples: [Float]) throws {
        var d = Data()
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { d.append(contentsOf: $0) } }
        d.append(contentsOf: Array("RIFF".utf8)); u32(36 + samples.count * 4); d.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16); u16(3); u16(1); u32(rate); u32(rate * 4); u16(4); u16(32)
        d.append(contentsOf: Array("data".utf8)); u32(samples.count * 4)
        for s in samples { withUnsafeBytes(of: s.bitPattern.littleEndian) { d.append(contentsOf: $0) } }
        try d.write(to: url)
    }

    /// Reads back a PCM WAV written by the engine: (rate, channels, bits, interleaved samples).
    static func read(_ url: URL) throws -> (rate: Int, channels: Int, bits: Int, samples: [Int32]) {
        let d = try Data(contentsOf: url)
        func u32(_ o: Int) -> Int { Int(d[o]) | Int(d[o + 1]) << 8 | Int(d[o + 2]) << 16 | Int(d[o + 3]) << 24 }
        func u16(_ o: Int) -> Int { Int(d[o]) | Int(d[o + 1]) << 8 }
        let channels = u16(22), rate = u32(24), bits = u16(34)
        precondition(String(decoding: d[36..<40], as: UTF8.self) == "data")
        let size = u32(40)
        precondition(size + 44 <= d.count, "header data size \(size) exceeds file")
        var out: [Int32] = []
        var o = 44
        while o + bits / 8 <= 44 + size {
            switch bits {
            case 16: out.append(Int32(Int16(bitPattern: UInt16(u16(o)))))
            case 24: out.append(Int32(bitPattern: UInt32(u32(o - 1) & ~0xFF)) >> 8)
            default: out.append(Int32(bitPattern: UInt32(u32(o))))
            }
            o += bits / 8
        }
        return (rate, channels, bits, out)
    }

    /// Deterministic pseudo-random full-scale samples.
    static func noise(count: Int, bits: Int, seed: UInt32 = 7) -> [Int32] {
        var x = seed
        let maxV = Int64(1) << (bits - 1)
        return (0..<count).map { _ in
            x ^= x << 13; x ^= x >> 17; x ^= x << 5
            return Int32(Int64(x) % (2 * maxV) - maxV)
        }
    }
}
