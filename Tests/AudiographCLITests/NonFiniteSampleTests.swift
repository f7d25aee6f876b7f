import Foundation
import Testing

/// A float WAV with samples that are not numbers (NaN) or infinite: played as silence where
/// they are, reported once, the rest of the audio intact; no crash in any node.
@Suite struct NonFiniteSampleTests {
    /// 1 s of a 440 Hz sine at 16 kHz as 32-bit float, with `bad` at sample 8000 (and 8001).
    static func file(_ bad: Float, _ name: String) throws -> URL {
        var samples = (0..<16000).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 16000)) }
        samples[8000] = bad
        samples[8001] = bad
        let url = CLI.tempDir().appendingPathComponent(name)
        try WAVFixture.writeFloat(url, rate: 16000, samples: samples)
        return url
    }

    static let values: [(Float, String)] = [(.nan, "nan.wav"), (.infinity, "inf.wav"), (-.infinity, "minus-inf.wav")]

    @Test(arguments: values.indices)
    func aGraphWithAVadRunsAndWarnsOnce(_ i: Int) throws {
        let wav = try Self.file(Self.values[i].0, Self.values[i].1)
        let r = try CLI.run(["run", "Graphs/transcribe.json", "--source", wav.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = r.stdoutLines.filter { $0.contains(#""type":"warning""#) }
        #expect(warnings.count == 1, "\(r.stdout)")
        #expect(warnings.first?.contains("2 samples not a number or infinite, replaced by silence (the first at 0.500 s)") == true)
        #expect(r.stdoutLines.last == #"{"type":"end","reason":"end-of-input"}"#)
    }

    /// Through the resampler's FFT low-pass to a float file: no non-finite sample comes out,
    /// and nothing is lost.
    @Test(arguments: ["f32", "s16"])
    func theResamplerPassesNoneOn(_ format: String) throws {
        let wav = try Self.file(.nan, "nan.wav")
        let dir = CLI.tempDir()
        let graph = dir.appendingPathComponent("down.json")
        let out = dir.appendingPathComponent("out.wav")
        try """
            {"nodes": [{"id": "src", "type": "file-source", "params": {"path": "\(wav.path)"}},
                       {"id": "rs", "type": "resampler", "params": {"rate": 8000}},
                       {"id": "out", "type": "wav-sink", "params": {"path": "\(out.path)", "format": "\(format)"}}],
             "connections": [{"from": "src", "to": "rs"}, {"from": "rs", "to": "out"}]}
            """.write(to: graph, atomically: true, encoding: .utf8)
        let r = try CLI.run(["run", graph.path])
        #expect(r.status == 0, "\(r.stderr)")
        let data = try Data(contentsOf: out)
        let body = data.dropFirst(44)
        if format == "f32" {
            let floats = body.withUnsafeBytes { raw in (0..<raw.count / 4).map { Float(bitPattern: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)) } }
            #expect(floats.count == 8000)
            #expect(floats.allSatisfy { $0.isFinite })
            // Around the replaced samples the sine goes on (no block of silence or clicks).
            #expect(floats[3900..<4100].map(abs).max()! > 0.4 && floats.map(abs).max()! < 0.6)
        } else {
            let ints = body.withUnsafeBytes { raw in (0..<raw.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) } }
            #expect(ints.count == 8000)
            #expect(ints.map { abs(Int($0)) }.max()! < 20000, "no full-scale clicks")
        }
    }
}
