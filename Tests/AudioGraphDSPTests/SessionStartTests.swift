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
    /// learning: a breath (band-limited hiss swelling over 0.45 s) and a clatter (a decaying
    /// burst). Loud against the room, but with no voice in them, they start no speech; the
    /// word at 3 s does. Both started speech at 0.5 s before voicing was asked for.
    /// With `hum` a mains hum's harmonics (100-300 Hz) run under the room sound: periodic, so
    /// the whole band's harmonicity called the breath voiced (a real recording's in-breath
    /// before its first words started speech 0.7 s early that way).
    @Test(arguments: [("breath", -42.0, false), ("breath", -36.0, false), ("clatter", -30.0, false),
                      ("breath", -42.0, true), ("breath", -36.0, true)])
    func unvoicedRoomSoundsInTheFirstSecondStartNoSpeech(kind: String, level: Double, hum: Bool) async throws {
        var x = Signals.noise(rms: 0.0008, seconds: 4.5, rate: Self.rate, seed: 11)
        for i in 1..<x.count { x[i] = 0.9 * x[i - 1] + 0.1 * x[i] }
        if hum {
            for f in [100.0, 150, 200, 250, 300] {
                let tone = Signals.sine(f, amplitude: 0.0015, seconds: 4.5, rate: Self.rate)
                for i in x.indices { x[i] += tone[i] }
            }
        }
        var sound = Signals.noise(rms: 1, seconds: kind == "breath" ? 0.45 : 0.08, rate: Self.rate, seed: 12)
        var low: Float = 0, previous: Float = 0
        for i in sound.indices {
            let t = Double(i) / Double(sound.count)
            if kind == "breath" {
                // 300 Hz - 3 kHz (one-pole high- and low-pass), swelling and fading.
                let high = sound[i] - previous
                previous = sound[i]
                low += 0.7 * (high - low)
                sound[i] = low * Float(pow(sin(Double.pi * t), 2))
            } else {
                sound[i] *= Float(exp(-Double(i) / 300))
            }
        }
        let gain = Float(pow(10, level / 20) / max(Signals.rms(sound[...]), 1e-12))
        Signals.place(sound.map { $0 * gain }, into: &x, at: 0.5, rate: Self.rate)
        Signals.place(Signals.voiced(amplitude: 0.2, seconds: 0.6, rate: Self.rate), into: &x, at: 3.0, rate: Self.rate)
        let s = try await starts(x)
        #expect(s.count == 1 && abs((s.first ?? 0) - 3.0) < 0.1, "\(kind) at \(level) dBFS\(hum ? " over hum" : ""): speech starts at \(s)")
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
