import Foundation
import Testing

/// Float audio beyond full scale (a float file at the wrong scale, a gain or a mixer before a
/// sink): where integer PCM clips it, the clipping is counted and said once, with where it
/// began. It was clipped without a word: the file's speech came out as other words.
@Suite struct ClippingTests {
    /// 1 s of a 440 Hz sine at half scale as 32-bit float, with 4 and -4 at samples 8000 and 8001.
    static func file() throws -> URL {
        var samples = (0..<16000).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 16000)) }
        samples[8000] = 4
        samples[8001] = -4
        let url = CLI.tempDir().appendingPathComponent("over.wav")
        try WAVFixture.writeFloat(url, rate: 16000, samples: samples)
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
