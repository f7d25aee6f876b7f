import Foundation
import Testing

/// Float audio beyond full scale (a float file at the wrong scale, a gain or a mixer before a
/// sink): where integer PCM clips it, the clipping is counted and said once, with where it
/// began. It was clipped without a word: the file's speech came out as other words.
@Suite struct ClippingTests {
    /// 1 s of a 440 Hz sine at half scale as 32-bit float, with 4.0 at samples 8000 and 8001.
    static func file() throws -> URL {
        var samples = (0..<16000).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 16000)) }
        samples[8000] = 4
        samples[8001] = -4
        var d = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        d.append(contentsOf: Array("RIFF".utf8)); u32(UInt32(36 + samples.count * 4)); d.append(contentsOf: Array("WAVE".utf8))
        d.append(contentsOf: Array("fmt ".utf8)); u32(16); u16(3); u16(1); u32(16000); u32(64000); u16(4); u16(32)
        d.append(contentsOf: Array("data".utf8)); u32(UInt32(samples.count * 4))
        for s in samples { u32(s.bitPattern) }
        let url = CLI.tempDir().appendingPathComponent("over.wav")
        try d.write(to: url)
        return url
    }

    /// Written as 16- or 24-bit PCM: one warning at the end, counting the two; as float:
    /// none, and the samples are kept as they are.
    @Test(arguments: ["s16", "s24", "f32"])
    func aSinkThatClipsSaysSo(_ format: String) throws {
        let out = CLI.tempDir().appendingPathComponent("out.wav")
        let r = try CLI.run(["run", "Graphs/gain.json", "--source", try Self.file().path, "--set", "gain.db=0",
                             "--set", "out.path=\(out.path)", "--set", "out.format=\(format)", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = r.stdoutLines.filter { $0.contains(#""type":"warning""#) }
        if format == "f32" {
            #expect(warnings.isEmpty, "\(warnings)")
            let data = try Data(contentsOf: out)
            let v = data.withUnsafeBytes { Float(bitPattern: $0.loadUnaligned(fromByteOffset: 44 + 8000 * 4, as: UInt32.self)) }
            #expect(v == 4)
        } else {
            #expect(warnings.count == 1, "\(r.stdout)")
            #expect(warnings.first?.contains("2 samples beyond full scale were clipped writing \(format) (peak +12.0 dBFS, the first at 0.500 s)") == true,
                    "\(warnings)")
            #expect(warnings.first?.contains(#""node":"out""#) == true)
        }
    }

    /// Into the recognizer, whose decoder takes 16-bit samples: said once, at the end.
    @Test func theRecognizerSaysWhatItClipped() throws {
        let r = try CLI.run(["run", "Graphs/transcribe.json", "--source", try Self.file().path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = r.stdoutLines.filter { $0.contains(#""type":"warning""#) }
        #expect(warnings.count == 1 && warnings.first?.contains("2 samples beyond full scale were clipped for decoding") == true
                && warnings.first?.contains(#""node":"asr""#) == true, "\(r.stdout)")
    }
}
