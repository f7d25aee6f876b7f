@testable import AudioGraphCore
import Foundation
import Testing

/// A mapped WAV file keeps only a window of itself resident, and reads the same samples
/// wherever the reader goes (forward, back to the start for a loop).
@Suite struct WAVFileReaderTests {
    /// Resident pages of this process's mappings of `path`, kB. Only the file's own mappings
    /// count, so tests that map models at the same time (parallel suites) do not add to it.
    func residentKB(ofMappingsOf path: String) -> Int {
        // Read to the end: a single read of a /proc file stops after its first page.
        let data = (try? FileHandle(forReadingAtPath: "/proc/self/smaps")?.readToEnd()) ?? nil
        let smaps = String(decoding: data ?? Data(), as: UTF8.self)
        var total = 0, inFile = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), !first.hasSuffix(":") {
                inFile = fields.count >= 6 && fields[5...].joined(separator: " ") == path
            } else if inFile, fields.first == "Rss:", fields.count >= 2 {
                total += Int(fields[1]) ?? 0
            }
        }
        return total
    }

    @Test func aLongFileStaysAWindowAndReadsTheSameTwice() throws {
        // 64 MB of 16-bit stereo, every frame's samples derived from its index.
        let frames = 16 << 20
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ag-window-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: url) }
        var header = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { header.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { header.append(contentsOf: $0) } }
        header.append(contentsOf: Array("RIFF".utf8)); u32(UInt32(36 + frames * 4)); header.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16); u16(1); u16(2); u32(48000); u32(192_000); u16(4); u16(16)
        header.append(contentsOf: Array("data".utf8)); u32(UInt32(frames * 4))
        var body = [Int16](repeating: 0, count: frames * 2)
        for i in 0..<frames { body[2 * i] = Int16(truncatingIfNeeded: i); body[2 * i + 1] = Int16(truncatingIfNeeded: i &* 7) }
        var data = header
        body.withUnsafeBytes { data.append(contentsOf: $0) }
        try data.write(to: url)
        body = []

        let reader = try WAVFileReader(path: url.path)
        let buffer = AudioBuffer(format: reader.header.format, frameCapacity: 4096)
        func checksum() -> Double {
            var sum = 0.0, start = 0
            while start < frames {
                let n = min(4096, frames - start)
                reader.read(into: buffer, start: start, count: n)
                let l = buffer.channel(0), r = buffer.channel(1)
                for i in stride(from: 0, to: n, by: 97) { sum += Double(l[i]) * Double(start + i) + Double(r[i]) }
                start += n
            }
            return sum
        }
        let first = checksum()
        let grown = residentKB(ofMappingsOf: url.path)
        let second = checksum()  // from the start again, as a looping source does
        #expect(first == second)
        #expect(grown > 0, "no resident pages found for \(url.path) in /proc/self/smaps")
        #expect(grown < 6 << 10, "the 64 MB file keeps \(grown) kB of itself resident")
        // Spot check against the values written.
        reader.read(into: buffer, start: 1_000_003, count: 1)
        #expect(buffer.channel(0)[0] == Float(Int16(truncatingIfNeeded: 1_000_003)) / 32768)
    }

    /// 16-bit mono and stereo (the vectorised path) read every value exactly, x / 32768,
    /// at any start, count and buffer offset (the eight-frame loop and its tail).
    @Test(arguments: [1, 2]) func sixteenBitSamplesReadExactly(channels: Int) throws {
        let frames = 1000
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ag-s16-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: url) }
        let extremes: [Int16] = [-32768, 32767, 0, -1, 1, -12345, 12345]
        let samples = (0..<frames * channels).map { i in i < extremes.count ? extremes[i] : Int16(truncatingIfNeeded: i &* 2654435761 >> 7) }
        var data = Data()
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); u32(36 + samples.count * 2); data.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16); u16(1); u16(channels); u32(16000); u32(16000 * 2 * channels); u16(2 * channels); u16(16)
        data.append(contentsOf: Array("data".utf8)); u32(samples.count * 2)
        for v in samples { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        try data.write(to: url)

        let reader = try WAVFileReader(path: url.path)
        let buffer = AudioBuffer(format: reader.header.format, frameCapacity: frames + 8)
        for (start, count, offset) in [(0, frames, 0), (3, 13, 5), (1, 7, 0), (500, 499, 1), (999, 1, 3)] {
            reader.read(into: buffer, at: offset, start: start, count: count)
            for c in 0..<channels {
                let out = buffer.channel(c)
                for i in 0..<count {
                    let expected = Float(samples[(start + i) * channels + c]) / 32768
                    #expect(out[offset + i] == expected, "frame \(start + i) channel \(c)")
                    if out[offset + i] != expected { return }
                }
            }
        }
    }

    /// A header its writer never came back to (data chunk 0 bytes, RIFF size 0 or ending at the
    /// data chunk: a recorder killed mid-take) holds the rest of the file, with a warning;
    /// before, such a file played as 0 s without a word. An empty data chunk in a finished
    /// file (a LIST chunk after it) stays empty.
    @Test(arguments: [(0, false), (36, false), (-1, true)])
    func anUnfinishedHeaderPlaysTheRestOfTheFile(riffSize: Int, finishedWithList: Bool) throws {
        let frames = 800
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ag-unfinished-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: url) }
        var b = LittleEndianBytes()
        b.tag("RIFF"); b.u32(finishedWithList ? 48 : riffSize); b.tag("WAVE")
        b.monoFmt16k()
        b.tag("data"); b.u32(0)
        if finishedWithList {
            b.tag("LIST"); b.u32(4); b.tag("INFO")
        } else {
            for i in 0..<frames { b.i16(i) }
        }
        try b.data.write(to: url)
        let reader = try WAVFileReader(path: url.path)
        if finishedWithList {
            #expect(reader.header.frameCount == 0)
            #expect(reader.header.warnings.isEmpty)
            return
        }
        #expect(reader.header.frameCount == frames)
        #expect(reader.header.warnings == ["the header was never finished (its data chunk says 0 bytes, yet 1600 follow): playing the rest of the file"])
        let buffer = AudioBuffer(format: reader.header.format, frameCapacity: frames)
        reader.read(into: buffer, start: 0, count: frames)
        #expect(buffer.channel(0)[frames - 1] == Float(frames - 1) / 32768)
    }

    /// RF64 and BW64 (the same layout under EBU's later name): sizes of 0xFFFFFFFF in the RIFF
    /// and data chunks, the real ones in the ds64 chunk. Before, BW64 was "no RIFF/WAVE header".
    @Test(arguments: ["RF64", "BW64"])
    func sixtyFourBitHeadersTakeTheirSizesFromDs64(_ id: String) throws {
        let frames = 500
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ag-\(id)-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: url) }
        var b = LittleEndianBytes()
        b.tag(id); b.u32(0xFFFF_FFFF); b.tag("WAVE")
        b.tag("ds64"); b.u32(28)
        b.u32(72 + frames * 2); b.u32(0); b.u32(frames * 2); b.u32(0); b.u32(frames); b.u32(0); b.u32(0)  // RIFF, data, sample count; no table
        b.monoFmt16k()
        b.tag("data"); b.u32(0xFFFF_FFFF)
        for i in 0..<frames { b.i16(-i) }
        b.tag("LIST"); b.u32(4); b.tag("INFO")  // a LIST chunk after the audio
        try b.data.write(to: url)
        let reader = try WAVFileReader(path: url.path)
        #expect(reader.header.frameCount == frames)
        #expect(reader.header.warnings.isEmpty, "\(reader.header.warnings)")
        let buffer = AudioBuffer(format: reader.header.format, frameCapacity: frames)
        reader.read(into: buffer, start: 0, count: frames)
        #expect(buffer.channel(0)[frames - 1] == Float(-(frames - 1)) / 32768)
    }

    /// A WAV of a codec neither the reader nor libsndfile has, read whole (as an earcon is):
    /// the reader's error naming the encoding, not libsndfile's or a crash.
    @Test func aCodecNoReaderHasIsOneError() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ag-codec-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: url) }
        var b = LittleEndianBytes()
        b.tag("RIFF"); b.u32(36 + 64); b.tag("WAVE")
        b.tag("fmt "); b.u32(16); b.u16(0x1234); b.u16(1); b.u32(16000); b.u32(32000); b.u16(2); b.u16(16)
        b.tag("data"); b.u32(64); b.data.append(Data(count: 64))
        try b.data.write(to: url)
        let e = #expect(throws: EngineError.self) { try WAVFile.monoSamples(path: url.path) }
        #expect(e?.description.contains("format tag 4660") == true, "\(String(describing: e))")
    }
}

/// A WAV file written byte by byte, as the header tests need it (little-endian fields).
struct LittleEndianBytes {
    var data = Data()
    mutating func tag(_ s: String) { data.append(contentsOf: Array(s.utf8)) }
    mutating func u32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian) { data.append(contentsOf: $0) } }
    mutating func u16(_ v: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: v).littleEndian) { data.append(contentsOf: $0) } }
    mutating func i16(_ v: Int) { withUnsafeBytes(of: Int16(truncatingIfNeeded: v).littleEndian) { data.append(contentsOf: $0) } }
    /// A `fmt ` chunk: 16-bit PCM, mono, 16 kHz.
    mutating func monoFmt16k() { tag("fmt "); u32(16); u16(1); u16(1); u32(16000); u32(32000); u16(2); u16(16) }
}
