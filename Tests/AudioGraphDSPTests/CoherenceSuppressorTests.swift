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
        var o = [Int16](repeating: 0, count: frame)
        for k in stride(from: 0, to: mic.count - frame + 1, by: frame) {
            let m = Array(mic[k..<k + frame]), f = Array(filtered[k..<k + frame]), r = Array(reference[k..<k + frame])
            o = f
            m.withUnsafeBufferPointer { mp in
                f.withUnsafeBufferPointer { fp in
                    r.withUnsafeBufferPointer { rp in
                        o.withUnsafeMutableBufferPointer { s.process(mic: mp, filtered: fp, reference: rp, output: $0, lag: 0, active: active) }
                    }
                }
            }
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
}
