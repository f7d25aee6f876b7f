import AudioGraph
import AudioGraphCore
import AudioGraphTestSupport
import Foundation
import Testing

@testable import AudioGraphDSP

/// The first seconds in a quiet room (issue #40 §4): washing up heard from across the room
/// (knocks and scrapes over faint running water, 20-40 dB over the room) is no voice and
/// starts no speech; a voice in the same room still starts at its onset.
@Suite struct QuietRoomStartTests {
    static let rate = 16000.0

    /// Runs of knocks and scrapes (bursts of noise 10-150 ms long, dying away, 20-40 dB over
    /// the room) over running water (noise at -65 dBFS), `seconds` long; the same sound for a
    /// given `seed`.
    /// `room` and `knocks` scale the water and the knocks (1: as described).
    static func washingUp(seconds: Double, seed: UInt64, room: Double = 1, knocks knockScale: Double = 1) -> [Float] {
        var x = Signals.noise(rms: 0.00056 * room, seconds: seconds, rate: rate, seed: seed)
        let knocks = Signals.noise(rms: 1, seconds: seconds, rate: rate, seed: seed &+ 100)
        var state = seed &* 6_364_136_223_846_793_005 &+ 1
        func uniform(_ a: Double, _ b: Double) -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return a + (b - a) * Double(state >> 11) / Double(1 << 53)
        }
        var run = uniform(0.2, 0.6)
        while run < seconds - 0.2 {
            var at = run
            for _ in 0..<Int(uniform(1, 6)) {
                let length = uniform(0.01, 0.15), gain = uniform(0.006, 0.06) * knockScale
                let start = Int(at * rate)
                for i in 0..<min(Int(length * rate), x.count - start) {
                    x[start + i] += Float(gain * exp(-Double(i) / (length * rate / 5))) * knocks[start + i]
                }
                at += uniform(0.05, 0.3)
            }
            run = at + uniform(0.2, 1.0)
        }
        return x
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func washingUpInAQuietRoomStartsNoSpeech(seed: UInt64) async throws {
        let x = Self.washingUp(seconds: 6, seed: seed)
        let events = try await VoiceActivityDetectorTests().vad(x)
        #expect(events.isEmpty, "seed \(seed): \(events)")
    }

    /// A room of -35 dBFS is not quiet, but knocks 40-60 dB over it still need a voice to
    /// start speech.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func knocksFarAboveALouderRoomStartNoSpeech(seed: UInt64) async throws {
        let x = Self.washingUp(seconds: 6, seed: seed, room: 31.6, knocks: 100)
        let events = try await VoiceActivityDetectorTests().vad(x)
        #expect(events.isEmpty, "seed \(seed): \(events)")
    }

    @Test func aVoiceInTheSameRoomStartsAtItsOnset() async throws {
        var x = Self.washingUp(seconds: 6, seed: 1)
        Signals.place(Signals.voiced(amplitude: 0.05, seconds: 1.2, rate: Self.rate), into: &x, at: 3.0, rate: Self.rate)
        let starts = try await VoiceActivityDetectorTests().vad(x).filter { $0.0 == "start" }
        #expect(starts.count == 1 && abs((starts.first?.1 ?? 0) - 3.0) <= 0.05, "\(starts)")
        #expect((starts.first?.2 ?? 9) - 3.0 < 0.3, "decided within 0.3 s: \(starts)")
    }
}
