import AudioGraph
import AudioGraphCore
import AudioGraphTestSupport
import Foundation
import Testing

@testable import AudioGraphDSP

/// The echo canceller's last stage: what of the output is still what plays goes, the user's
/// voice stays, and outside an echo it only delays the output by a frame.
struct CoherenceSuppressorTests {
    static let frame = 320

    static func pcm(_ x: [Float]) -> [Int16] { x.map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) } }

    /// Runs 3 s of frames: the microphone, the filter's output and the reference (the echo at
    /// lag 0), `active` throughout; returns the output.
    static func run(mic: [Int16], filtered: [Int16], reference: [Int16], active: Bool) throws -> [Int16] {
        let s = try #require(CoherenceSuppressor(frame: frame, maxLag: 800, overdrive: 2))
        var out: [Int16] = []
        for k in stride(from: 0, to: mic.count - frame + 1, by: frame) {
            let f = Array(filtered[k..<k + frame])
            var o = f
            s.process(mic: Array(mic[k..<k + frame]), filtered: f, reference: Array(reference[k..<k + frame]), output: &o, lag: 0, active: active)
            out += o
        }
        return out
    }

    static func energy(_ x: ArraySlice<Int16>) -> Double { x.reduce(0) { $0 + Double($1) * Double($1) } }

    @Test func withoutAnEchoItOnlyDelaysByAFrame() throws {
        let x = Self.pcm(Signals.noise(rms: 0.1, seconds: 3, rate: 16000, seed: 1))
        let out = try Self.run(mic: x, filtered: x, reference: x, active: false)
        #expect(Array(out[Self.frame...]) == Array(x[..<(out.count - Self.frame)]))
    }

    @Test func aLeakOfWhatPlaysIsTakenOut() throws {
        // The filter took nothing out (its output is the microphone, which is the echo).
        let echo = Self.pcm(Signals.noise(rms: 0.1, seconds: 3, rate: 16000, seed: 1))
        let out = try Self.run(mic: echo, filtered: echo, reference: echo, active: true)
        let taken = 10 * log10(Self.energy(echo[16000..<47000]) / max(1, Self.energy(out[16320..<47320])))
        #expect(taken > 25, "\(taken) dB taken out")
    }

    @Test func theUsersVoiceStays() throws {
        // The microphone is the user alone; what plays is something else.
        let user = Self.pcm(Signals.noise(rms: 0.1, seconds: 3, rate: 16000, seed: 2))
        let plays = Self.pcm(Signals.noise(rms: 0.1, seconds: 3, rate: 16000, seed: 3))
        let out = try Self.run(mic: user, filtered: user, reference: plays, active: true)
        let lost = 10 * log10(Self.energy(user[16000..<47000]) / max(1, Self.energy(out[16320..<47320])))
        #expect(lost < 3, "the user's voice \(lost) dB lower")
    }

    /// The node: an echo 0.1 s late, 6 dB down, found by `align`; once the filter holds it the
    /// stage takes the residual further down, and a voice that is not what plays, as loud as the
    /// echo over its last two seconds, comes through.
    @Test func theNodeTakesTheResidualDownAndLetsTheUserThrough() throws {
        let rate = 16000.0
        let plays = Signals.noise(rms: 0.1, seconds: 10, rate: rate, seed: 4)
        let user = Signals.noise(rms: 0.05, seconds: 2, rate: rate, seed: 5)
        var mic = [Float](repeating: 0, count: 1600) + plays.dropLast(1600).map { 0.5 * $0 }
        for i in user.indices { mic[8 * 16000 + i] += user[i] }
        func run(coherence: Double) throws -> [Float] {
            try runEchoCanceller(["coherence": .number(coherence)], mic: mic, plays: plays, rate: rate)
        }
        func energy(_ x: ArraySlice<Float>) -> Double { x.reduce(0) { $0 + Double($1 * $1) } }
        let plain = try run(coherence: 0), staged = try run(coherence: 1)
        let residual = 5 * 16000..<8 * 16000, voice = 8 * 16000 + 3200..<10 * 16000 - 1600
        let taken = 10 * log10(energy(plain[residual]) / max(energy(staged[residual]), 1e-12))
        #expect(taken > 6, "the stage took the residual \(taken) dB further down")
        // How much of the voice itself each output carries (its projection on the voice, which
        // the output holds 40 ms late, 60 ms through the stage): the echo the filter lets
        // through in double talk, which the stage also takes, does not count.
        func voiceLevel(_ out: [Float], late: Int) -> Double {
            var dot = 0.0, norm = 0.0
            for i in voice { let u = Double(mic[i - late] - 0.5 * plays[i - late - 1600]); dot += Double(out[i]) * u; norm += u * u }
            return dot / norm
        }
        let voiceChange = 20 * log10(voiceLevel(plain, late: 640) / voiceLevel(staged, late: 960))
        // A bin's coherence with the microphone is the voice's share of it there: a voice as
        // loud as the echo in every bin (this noise) keeps about half its power (4.9 dB lost
        // when this was written; speech, loud in few bins at a time, loses 1.7 dB offline).
        #expect(voiceChange < 6, "the voice over the echo lost \(voiceChange) dB to the stage")
    }
}
