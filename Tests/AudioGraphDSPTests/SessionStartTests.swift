import AudioGraph
import AudioGraphCore
import AudioGraphTestSupport
import Foundation
import Testing

@testable import AudioGraphDSP

/// The first seconds of a session: room sound before anyone speaks starts no speech, and the
/// first words are still found. Synthetic scenes (deterministic noise) with a voiced word.
@Suite struct SessionStartTests {
    static let rate = 16000.0

    func starts(_ x: [Float]) async throws -> [Double] {
        let events = try await OfflineRender.run("vad", [:], input: [x], rate: Self.rate, registry: .builtin).events
        return events.compactMap { if case .speechStart(_, let t, _) = $0 { t } else { nil } }
    }

    /// `lead` seconds of digital silence, then room sound at `rms` (`shaped`: low-passed, a
    /// fan's or a room's rumble), and a word at 3 s.
    static func scene(lead: Double, rms: Double, shaped: Bool, seed: UInt64) -> [Float] {
        var room = Signals.noise(rms: rms, seconds: 4.5 - lead, rate: rate, seed: seed)
        if shaped {
            for i in 1..<room.count { room[i] = 0.9 * room[i - 1] + 0.1 * room[i] }
            let gain = Float(rms / max(Signals.rms(room[...]), 1e-12))
            for i in room.indices { room[i] *= gain }
        }
        var x = [Float](repeating: 0, count: Int(lead * rate)) + room
        Signals.place(Signals.voiced(amplitude: 0.2, seconds: 0.6, rate: rate), into: &x, at: 3.0, rate: rate)
        return x
    }

    /// Streams often begin with digital silence (a sound server's first blocks, a file's
    /// lead-in): the noise that follows is the room's, not speech. It was taken as speech
    /// from its first frames until a minute later.
    @Test(arguments: [0.0, 0.03, 0.2, 1.0])
    func digitalSilenceThenRoomSoundStartsNoSpeech(lead: Double) async throws {
        for (rms, shaped, seed) in [(0.003, false, UInt64(1)), (0.003, true, 2), (0.0008, true, 3), (0.01, false, 4)] {
            let s = try await starts(Self.scene(lead: lead, rms: rms, shaped: shaped, seed: seed))
            #expect(s.count == 1 && abs((s.first ?? 0) - 3.0) < 0.1,
                    "lead \(lead) s, room rms \(rms)\(shaped ? " shaped" : ""): speech starts at \(s)")
        }
    }

    /// Sounds of a room in a session's first second, while the noise estimate is still
    /// learning: a breath (band-limited hiss swelling over 0.45 s), a clatter (a decaying
    /// burst) and typing (clicks 80-200 ms apart for a second). Loud against the room, but with no voice in them, they start no speech; the
    /// word at 3 s does. Both started speech at 0.5 s before voicing was asked for.
    /// With `hum` a mains hum's harmonics (100-300 Hz) run under the room sound: periodic, so
    /// the whole band's harmonicity called the breath voiced (a real recording's in-breath
    /// before its first words started speech 0.7 s early that way).
    @Test(arguments: [("breath", -42.0, false), ("breath", -36.0, false), ("clatter", -30.0, false),
                      ("breath", -42.0, true), ("breath", -36.0, true), ("keyboard", -36.0, false)])
    func unvoicedRoomSoundsInTheFirstSecondStartNoSpeech(kind: String, level: Double, hum: Bool) async throws {
        let s = try await starts(Self.room(with: kind, at: level, hum: hum))
        #expect(s.count == 1 && abs((s.first ?? 0) - 3.0) < 0.1, "\(kind) at \(level) dBFS\(hum ? " over hum" : ""): speech starts at \(s)")
    }

    /// A chair's creak in the first second (a stick-slip pulse train at 50-80 Hz ringing at
    /// 1.4 kHz, 0.4 s at -36 dBFS) is as periodic as a voice, but its sound lies above the
    /// first formant's range: it starts no speech (it did while voicing was periodicity alone).
    @Test(arguments: [false, true])
    func aChairsCreakInTheFirstSecondStartsNoSpeech(hum: Bool) async throws {
        let s = try await starts(Self.room(with: "creak", at: -36, hum: hum))
        #expect(s.count == 1 && abs((s.first ?? 0) - 3.0) < 0.1, "creak\(hum ? " over hum" : ""): speech starts at \(s)")
    }

    /// A quiet room (-62 dBFS rumble, with `hum`: mains harmonics at 100-300 Hz), a room sound
    /// of `kind` at `level` dBFS at 0.5 s, and a voiced word at 3 s.
    static func room(with kind: String, at level: Double, hum: Bool) -> [Float] {
        var x = Signals.noise(rms: 0.0008, seconds: 4.5, rate: rate, seed: 11)
        for i in 1..<x.count { x[i] = 0.9 * x[i - 1] + 0.1 * x[i] }
        if hum {
            for f in [100.0, 150, 200, 250, 300] {
                let tone = Signals.sine(f, amplitude: 0.0015, seconds: 4.5, rate: rate)
                for i in x.indices { x[i] += tone[i] }
            }
        }
        let sound = roomSound(kind)
        let gain = Float(pow(10, level / 20) / max(Signals.rms(sound[...]), 1e-12))
        Signals.place(sound.map { $0 * gain }, into: &x, at: 0.5, rate: rate)
        Signals.place(Signals.voiced(amplitude: 0.2, seconds: 0.6, rate: rate), into: &x, at: 3.0, rate: rate)
        return x
    }

    /// A room sound of `kind` (breath, clatter, keyboard, creak), to be scaled to a level.
    static func roomSound(_ kind: String) -> [Float] {
        let seconds = ["breath": 0.45, "keyboard": 1.0, "creak": 0.4][kind] ?? 0.08
        var sound = Signals.noise(rms: 1, seconds: seconds, rate: rate, seed: 12)
        switch kind {
        case "breath":
            // 300 Hz - 3 kHz (one-pole high- and low-pass), swelling and fading.
            var low: Float = 0, previous: Float = 0
            for i in sound.indices {
                let t = Double(i) / Double(sound.count)
                let high = sound[i] - previous
                previous = sound[i]
                low += 0.7 * (high - low)
                sound[i] = low * Float(pow(sin(Double.pi * t), 2))
            }
        case "keyboard":
            // 5 ms decaying clicks, 80-200 ms apart.
            var next = 0, k = 0
            for i in sound.indices {
                if i == next { k = 0; next += Int(rate * (0.08 + 0.12 * Double((i * 7919) % 100) / 100)) }
                sound[i] *= Float(exp(-Double(k) / 40))
                k += 1
            }
        case "creak":
            // Stick-slip: a pulse every 20 down to 12.5 ms, each ringing a 1.4 kHz resonance.
            var out = [Float](repeating: 0, count: sound.count)
            var at = 0.0
            while Int(at * rate) < out.count {
                let i0 = Int(at * rate)
                for k in 0..<min(240, out.count - i0) {
                    out[i0 + k] += Float(sin(2 * Double.pi * 1400 * Double(k) / rate) * exp(-Double(k) / 60))
                }
                at += 0.02 - 0.0075 * at / seconds
            }
            sound = out
        default:
            // A clatter: a decaying burst.
            for i in sound.indices { sound[i] *= Float(exp(-Double(i) / 300)) }
        }
        return sound
    }

    /// A microphone that opens with a pop (a full-scale click in the stream's first frame),
    /// then a quiet talker (speech 25 dB under flite's, peaks near -30 dBFS) in a quiet room:
    /// their words are found. The talker's loud level started at the click's and fell 1.5 dB
    /// a second, so every word 20 dB under it was faded out as background: nothing started.
    @Test(.flite, arguments: [0.5, 2.0])
    func aPopAsTheMicrophoneOpensHidesNoQuietTalker(wordsAt: Double) async throws {
        let wav = try #require(Flite.speech("turn on the kitchen light please"))
        let speech = try WAVFile.monoSamples(path: wav.path)
        try #require(speech.rate == 16000)
        var x = Signals.noise(rms: 0.0001, seconds: wordsAt, rate: Self.rate, seed: 21)
            + speech.samples.map { $0 * 0.056 } + Signals.noise(rms: 0.0001, seconds: 1, rate: Self.rate, seed: 22)
        for i in 0..<160 { x[100 + i] += Float(exp(-Double(i) / 53)) * (i % 16 < 8 ? 0.98 : -0.98) }
        let loud = stride(from: 8000, to: x.count - 160, by: 160).first { Signals.db(Signals.rms(x[$0..<($0 + 160)])) > -60 } ?? 0
        let onset = Double(loud) / Self.rate
        let s = try await starts(x)
        #expect(!s.isEmpty && abs((s.first ?? 0) - onset) < 0.2, "the words' onset \(onset) s: speech starts at \(s)")
    }

    /// Speech right after digital silence (flite's output, a file's lead-in of zeros) is
    /// still found, at its first loud frame or soon after; the noise estimate then starts
    /// from the speech's first frames, so the onset may come up to a syllable late.
    @Test(.flite) func speechRightAfterDigitalSilenceIsFound() async throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let speech = try WAVFile.monoSamples(path: wav.path)
        try #require(speech.rate == 16000)
        let x = [Float](repeating: 0, count: 8000) + speech.samples + [Float](repeating: 0, count: 16000)
        // Where the sound begins: the first 10 ms louder than -50 dBFS.
        let loud = stride(from: 0, to: x.count - 160, by: 160).first { Signals.db(Signals.rms(x[$0..<($0 + 160)])) > -50 } ?? 0
        let onset = Double(loud) / Self.rate
        let s = try await starts(x)
        // Not before the zeros end (0.5 s), at most 0.2 s after the first loud frame.
        #expect(s.count == 1 && (s.first ?? 0) >= 0.49 && (s.first ?? 0) <= onset + 0.2, "onset \(onset), speech starts \(s)")
    }
}
