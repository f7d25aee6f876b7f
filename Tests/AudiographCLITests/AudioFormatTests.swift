import AudioGraphCore
import AudioGraphTestSupport
import Foundation
import Testing

/// The audio files people have: FLAC, Ogg Vorbis and Opus, MP3 through libsndfile, made at
/// test time from flite speech, decoded by `file-source` and compared with what the
/// reference tools decode (sox, opusdec) and with the words of the original.
@Suite struct AudioFormatTests {
    static func tool(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    static func run(_ tool: String, _ args: [String]) -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// `file` decoded by audiograph into 32-bit float samples (interleaved), with its rate.
    static func decoded(_ file: URL) throws -> (rate: Int, samples: [Float]) {
        let out = CLI.tempDir().appendingPathComponent("decoded.wav")
        let g = CLI.tempDir().appendingPathComponent("decode.json")
        try """
        {"nodes": [{"id": "src", "type": "file-source", "params": {"path": "\(file.path)"}},
                   {"id": "out", "type": "wav-sink", "params": {"path": "\(out.path)", "format": "f32"}}],
         "connections": [{"from": "src", "to": "out"}]}
        """.write(to: g, atomically: true, encoding: .utf8)
        let r = try CLI.run(["run", g.path])
        #expect(r.status == 0, "\(file.lastPathComponent): \(r.stderr)")
        return try floats(out)
    }

    /// A 16-bit PCM or 32-bit float WAV's samples as floats, whatever chunks it has (sox and
    /// opusdec write extensible headers and extra chunks).
    static func floats(_ wav: URL) throws -> (rate: Int, samples: [Float]) {
        let d = try Data(contentsOf: wav)
        func u32(_ o: Int) -> Int { Int(d[o]) | Int(d[o + 1]) << 8 | Int(d[o + 2]) << 16 | Int(d[o + 3]) << 24 }
        func u16(_ o: Int) -> Int { Int(d[o]) | Int(d[o + 1]) << 8 }
        var o = 12, rate = 0, bits = 0
        while o + 8 <= d.count {
            let id = String(decoding: d[o..<o + 4], as: UTF8.self), size = u32(o + 4)
            if id == "fmt " { rate = u32(o + 12); bits = u16(o + 22) }
            if id == "data" {
                let end = min(d.count, o + 8 + size)
                var out: [Float] = []
                var k = o + 8
                while k + bits / 8 <= end {
                    out.append(bits == 32 ? Float(bitPattern: UInt32(u32(k))) : Float(Int16(bitPattern: UInt16(u16(k)))) / 32768)
                    k += bits / 8
                }
                return (rate, out)
            }
            o += 8 + size + (size & 1)
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    /// Signal-to-difference ratio (dB) of `b` against `a` at the best lag within ±`reach` of
    /// where their sounds begin relative to each other (decoders differ in the padding they trim).
    static func match(_ a: [Float], _ b: [Float], reach: Int = 0) -> (db: Double, lag: Int) {
        func onset(_ x: [Float]) -> Int { x.firstIndex { abs($0) > 0.05 } ?? 0 }
        let centre = reach > 0 ? onset(b) - onset(a) : 0
        var best = (db: -Double.infinity, lag: 0)
        for lag in (centre - min(reach, 64))...(centre + min(reach, 64)) {
            var sig = 0.0, diff = 0.0
            for i in stride(from: max(0, -lag), to: min(a.count, b.count - lag), by: 1) {
                let x = Double(a[i]), y = Double(b[i + lag])
                sig += x * x
                diff += (x - y) * (x - y)
            }
            let db = diff > 0 ? 10 * log10(sig / diff) : 300
            if db > best.db { best = (db, lag) }
        }
        return best
    }

    func words(_ file: URL) throws -> String {
        let r = try CLI.run(["run", "graphs/transcribe.json", "--source", file.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdoutLines.filter { $0.contains(#""type":"final""#) }.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["text"] as? String
        }.joined(separator: " ")
    }

    @Test(.flite) func flacIsLosslessAndOggIsWhatSoxDecodes() throws {
        let wav = try #require(Flite.speech("find japanese restaurants nearby"))
        let dir = CLI.tempDir()
        let flac = dir.appendingPathComponent("speech.flac"), ogg = dir.appendingPathComponent("speech.ogg")
        try #require(Self.run("/usr/bin/sox", [wav.path, flac.path]) && Self.run("/usr/bin/sox", [wav.path, ogg.path]))
        let original = try Self.decoded(wav)
        let fromFlac = try Self.decoded(flac)
        #expect(fromFlac.rate == original.rate && fromFlac.samples == original.samples, "FLAC decodes to the WAV's exact samples")
        let soxOgg = dir.appendingPathComponent("sox-ogg.wav")
        try #require(Self.run("/usr/bin/sox", [ogg.path, "-e", "floating-point", "-b", "32", soxOgg.path]))
        let (ours, theirs) = (try Self.decoded(ogg), try Self.floats(soxOgg))
        let m = Self.match(theirs.samples, ours.samples)
        #expect(ours.rate == theirs.rate && abs(ours.samples.count - theirs.samples.count) <= 1 && m.db > 60,
                "Ogg Vorbis as sox decodes it: \(m.db) dB, \(ours.samples.count) vs \(theirs.samples.count) samples")
        #expect(try words(ogg) == words(wav), "the same words as the WAV")
    }

    @Test(.flite, .enabled(if: tool("/usr/bin/lame"), "lame is not installed (Tools/install-deps installs it)"))
    func mp3DecodesLikeSox() throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let dir = CLI.tempDir()
        let mp3 = dir.appendingPathComponent("speech.mp3"), soxMP3 = dir.appendingPathComponent("sox-mp3.wav")
        try #require(Self.run("/usr/bin/lame", ["--quiet", "-b", "128", wav.path, mp3.path]))
        try #require(Self.run("/usr/bin/sox", [mp3.path, "-e", "floating-point", "-b", "32", soxMP3.path]))
        let (ours, theirs) = (try Self.decoded(mp3), try Self.floats(soxMP3))
        // Different MP3 decoders (mpg123 in libsndfile, libmad in sox), and encoder padding
        // that one trims: the same sound within a few milliseconds.
        let m = Self.match(theirs.samples, ours.samples, reach: 2400)
        #expect(ours.rate == theirs.rate && m.db > 40, "MP3 as sox decodes it: \(m.db) dB at lag \(m.lag)")
        #expect(try words(mp3) == words(wav), "the same words as the WAV")
    }

    @Test(.flite, .enabled(if: tool("/usr/bin/opusenc") && tool("/usr/bin/opusdec"),
                           "opus-tools is not installed (Tools/install-deps installs it)"))
    func opusDecodesLikeOpusdec() throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let dir = CLI.tempDir()
        let opus = dir.appendingPathComponent("speech.opus"), ref = dir.appendingPathComponent("opusdec.wav")
        try #require(Self.run("/usr/bin/opusenc", ["--quiet", wav.path, opus.path]))
        try #require(Self.run("/usr/bin/opusdec", ["--quiet", "--float", "--rate", "16000", opus.path, ref.path]))
        let (ours, theirs) = (try Self.decoded(opus), try Self.floats(ref))
        // At the input's rate (the stream's header); libopus decodes there itself, opusdec
        // through its own resampler: the same sound, not the same samples.
        let m = Self.match(theirs.samples, ours.samples, reach: 400)
        func rms(_ x: [Float]) -> Double { (x.reduce(0) { $0 + Double($1 * $1) } / Double(max(1, x.count))).squareRoot() }
        let levels = 20 * log10(rms(ours.samples) / rms(theirs.samples))
        #expect(ours.rate == 16000 && m.db > 10 && abs(levels) < 1,
                "Opus as opusdec decodes it: \(m.db) dB at lag \(m.lag), level \(levels) dB apart")
        #expect(try words(opus) == words(wav), "the same words as the WAV")
    }

    @Test(.flite) func brokenFilesGetOneLine() throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let dir = CLI.tempDir()
        // Not sound at all, with a sound file's name.
        let junk = dir.appendingPathComponent("junk.flac")
        try Data((0..<20000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: junk)
        let r = try CLI.run(["run", "graphs/transcribe.json", "--source", junk.path])
        #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains("junk.flac")
                && r.stderr.contains("parameter \"path\""), "\(r.stderr)")
        // A FLAC cut off halfway plays what it has: no crash, no hang.
        let flac = dir.appendingPathComponent("whole.flac"), cut = dir.appendingPathComponent("cut.flac")
        try #require(Self.run("/usr/bin/sox", [wav.path, flac.path]))
        let data = try Data(contentsOf: flac)
        try data.prefix(data.count / 2).write(to: cut)
        let half = try CLI.run(["run", "graphs/transcribe.json", "--source", cut.path, "--json"])
        #expect(half.status == 0 && !half.stderr.contains("Fatal"), "\(half.stderr)")
        #expect(half.stdoutLines.contains { $0.contains(#""type":"warning""#) && $0.contains("cut.flac: decoding stopped at") },
                "the cut is reported: \(half.stdoutLines.filter { !$0.contains("level") })")
        #expect(half.stdoutLines.last?.contains(#""type":"end","reason":"end-of-input""#) == true)
    }

    /// WAVs of the codecs telephones and dictaphones write: before, the WAV reader refused
    /// them ("unsupported WAV encoding (format tag 17)") though libsndfile decodes them.
    @Test(.flite, arguments: ["ima-adpcm", "ms-adpcm", "gsm-full-rate"])
    func wavsOfOtherCodecsDecodeLikeSox(_ encoding: String) throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let dir = CLI.tempDir()
        let coded = dir.appendingPathComponent("\(encoding).wav"), soxs = dir.appendingPathComponent("sox.wav")
        try #require(Self.run("/usr/bin/sox", [wav.path, "-e", encoding, coded.path]))
        try #require(Self.run("/usr/bin/sox", [coded.path, "-e", "floating-point", "-b", "32", soxs.path]))
        let (ours, theirs) = (try Self.decoded(coded), try Self.floats(soxs))
        let m = Self.match(theirs.samples, ours.samples, reach: 400)
        #expect(ours.rate == theirs.rate && m.db > 30, "\(encoding) as sox decodes it: \(m.db) dB at lag \(m.lag)")
        #expect(try words(coded) == words(wav), "the same words as the WAV")
        // From 0.5 s, twice: GSM 6.10 cannot seek, so the file is decoded up to the start and
        // opened again for the second time round.
        let out = dir.appendingPathComponent("twice.wav"), g = dir.appendingPathComponent("twice.json")
        try """
        {"nodes": [{"id": "src", "type": "file-source", "params": {"path": "\(coded.path)", "start": 0.5, "loop": 2}},
                   {"id": "out", "type": "wav-sink", "params": {"path": "\(out.path)", "format": "f32"}}],
         "connections": [{"from": "src", "to": "out"}]}
        """.write(to: g, atomically: true, encoding: .utf8)
        let r = try CLI.run(["run", g.path])
        #expect(r.status == 0 && !r.stderr.contains("warning"), "\(r.stderr)")
        let twice = try Self.floats(out).samples, skip = ours.rate / 2
        #expect(twice.count == 2 * (ours.samples.count - skip), "\(twice.count) samples")
        #expect(Array(twice.prefix(ours.samples.count - skip)) == Array(ours.samples.dropFirst(skip)), "the first time round")
        #expect(Array(twice.suffix(ours.samples.count - skip)) == Array(ours.samples.dropFirst(skip)), "the second")
        // Read whole, as an earcon is: the same samples (it was refused: "unsupported WAV encoding").
        let whole = try WAVFile.monoSamples(path: coded.path)
        #expect(whole.rate == ours.rate && whole.samples == ours.samples)
    }

    /// A big-endian WAV (RIFX) goes to libsndfile; before, the WAV reader took it by its first
    /// bytes and refused it ("no RIFF/WAVE header").
    @Test(.flite) func bigEndianRIFXIsTheSameSound() throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let rifx = CLI.tempDir().appendingPathComponent("big-endian.wav")
        try #require(Self.run("/usr/bin/sox", [wav.path, "-B", rifx.path]))
        let head = try Data(contentsOf: rifx).prefix(4)
        try #require(String(decoding: head, as: UTF8.self) == "RIFX")
        let (ours, original) = (try Self.decoded(rifx), try Self.decoded(wav))
        #expect(ours.rate == original.rate && ours.samples == original.samples)
        #expect(try WAVFile.monoSamples(path: rifx.path).samples == original.samples, "read whole, as an earcon is")
    }
}
