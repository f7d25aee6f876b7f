import Foundation
import Testing

/// `audiograph tune`: measured FFT plans are kept in the cache folder and used by later runs,
/// whose output changes by float rounding only; a damaged or unwritable plan file never
/// fails a run.
@Suite struct TuneCommandTests {
    /// A folder with two seconds of 48 kHz stereo noise and a graph converting it to 16 kHz
    /// mono f32 (the FFT resampler: file input); `resample: false` leaves the resampler out.
    private func fixture(resample: Bool = true) throws -> (dir: URL, graph: URL, output: URL) {
        let dir = CLI.tempDir()
        let input = dir.appendingPathComponent("in.wav"), output = dir.appendingPathComponent("out.wav")
        try WAVFixture.write(input, rate: 48000, channels: 2, bits: 16,
                             samples: WAVFixture.noise(count: 2 * 96000, bits: 16).map { $0 / 4 })
        let rs = resample ? #"{"id": "rs", "type": "resampler", "params": {"rate": 16000}},"# : ""
        let chain = resample ? #"{"from": "src", "to": "rs"}, {"from": "rs", "to": "mono"},"# : #"{"from": "src", "to": "mono"},"#
        let graph = dir.appendingPathComponent("convert.json")
        try """
            {"graph": "convert", "nodes": [
              {"id": "src", "type": "file-source", "params": {"path": "\(input.path)"}}, \(rs)
              {"id": "mono", "type": "mixer", "params": {"channels": 1}},
              {"id": "out", "type": "wav-sink", "params": {"path": "\(output.path)", "format": "f32"}}],
             "connections": [\(chain) {"from": "mono", "to": "out"}]}
            """.write(to: graph, atomically: true, encoding: .utf8)
        return (dir, graph, output)
    }

    private func samples(_ url: URL) throws -> [Float] {
        try WAVFixture.read(url).samples.map { Float(bitPattern: UInt32(bitPattern: $0)) }
    }

    @Test func tunedRunsDifferOnlyByRounding() throws {
        let (dir, graph, output) = try fixture()
        let env = ["AUDIOGRAPH_CACHE": dir.appendingPathComponent("cache").path]
        let plain = try CLI.run(["run", graph.path], environment: env)
        #expect(plain.status == 0, "\(plain.stderr)")
        let before = try samples(output)
        let tune = try CLI.run(["tune", graph.path], environment: env)
        #expect(tune.status == 0 && tune.stdout.contains("measured 2 FFT plans"), "\(tune.stdout) \(tune.stderr)")
        let kept = try String(contentsOf: dir.appendingPathComponent("cache/fftw-wisdom"), encoding: .utf8)
        #expect(kept.hasPrefix("(fftw-3") && kept.contains("fftwf_codelet"), "\(kept.prefix(200))")
        let tuned = try CLI.run(["run", graph.path], environment: env)
        #expect(tuned.status == 0, "\(tuned.stderr)")
        let after = try samples(output)
        #expect(before.count == 32000 && after.count == before.count)
        let worst = zip(before, after).map { abs($0 - $1) }.max() ?? .infinity
        #expect(worst < 1e-5, "largest difference \(worst)")
    }

    @Test func aDamagedPlanFileIsIgnored() throws {
        let (dir, graph, output) = try fixture()
        let cache = dir.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let plain = try CLI.run(["run", graph.path], environment: ["AUDIOGRAPH_CACHE": cache.path])
        let reference = try samples(output)
        try "(fftw-3.3.10 fftwf_wisdom #x1 (fftwf_codelet_n1fv_12_avx 0 #x1".write(
            to: cache.appendingPathComponent("fftw-wisdom"), atomically: true, encoding: .utf8)
        let damaged = try CLI.run(["run", graph.path, "--json"], environment: ["AUDIOGRAPH_CACHE": cache.path])
        #expect(plain.status == 0 && damaged.status == 0 && damaged.stderr.isEmpty, "\(damaged.stderr)")
        #expect(try samples(output) == reference)
        // Tuning replaces it with a whole file.
        let tune = try CLI.run(["tune", graph.path], environment: ["AUDIOGRAPH_CACHE": cache.path])
        let kept = try String(contentsOf: cache.appendingPathComponent("fftw-wisdom"), encoding: .utf8)
        #expect(tune.status == 0 && kept.hasPrefix("(fftw-3") && kept.hasSuffix(")\n"), "\(tune.stderr)")
    }

    @Test func tuneSaysWhenItCannotKeepThePlans() throws {
        let (_, graph, _) = try fixture()
        let r = try CLI.run(["tune", graph.path], environment: ["AUDIOGRAPH_CACHE": "/proc/no/such/folder"])
        #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains("/proc/no/such/folder"), "\(r.stderr)")
    }

    @Test func anInputThatCannotBeOpenedIsOneLine() throws {
        let (dir, graph, _) = try fixture()
        try FileManager.default.removeItem(at: dir.appendingPathComponent("in.wav"))
        let r = try CLI.run(["tune", graph.path], environment: ["AUDIOGRAPH_CACHE": dir.appendingPathComponent("cache").path])
        #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains("in.wav") && r.stderr.contains("src"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("cache/fftw-wisdom").path))
    }

    @Test func aGraphWithoutTransformsHasNothingToTune() throws {
        let (dir, graph, _) = try fixture(resample: false)
        let r = try CLI.run(["tune", graph.path], environment: ["AUDIOGRAPH_CACHE": dir.appendingPathComponent("cache").path])
        #expect(r.status == 0 && r.stdout.contains("no FFT to tune"), "\(r.stdout) \(r.stderr)")
    }
}
