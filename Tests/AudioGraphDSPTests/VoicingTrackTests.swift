import AudioGraphCore
import AudioGraphTestSupport
import Foundation
import Testing

@testable import AudioGraphDSP

/// The stream's voicing (``VoicingTrack``): a voice's periodic sound reads as voiced, noise
/// does not, frames sit at stream time whatever the blocks, and what is no longer held is
/// not made up.
@Suite struct VoicingTrackTests {
    /// `seconds` of a 140 Hz voiced tone (`Signals.voiced`) as 16-bit samples.
    static func voice(_ seconds: Double) -> [Int16] {
        Signals.voiced(140, seconds: seconds, rate: 16000).map(PCM.int16)
    }

    /// `seconds` of white noise (`Signals.noise`, a fixed generator) as 16-bit samples.
    static func noise(_ seconds: Double, seed: UInt64 = 7) -> [Int16] {
        Signals.noise(rms: 0.05, seconds: seconds, rate: 16000, seed: seed).map(PCM.int16)
    }

    static func track(_ x: [Int16], block: Int, seconds: Double = 10) -> VoicingTrack {
        let track = VoicingTrack(seconds: seconds)!
        x.withUnsafeBufferPointer { p in
            var k = 0
            while k < x.count {
                let n = min(block, x.count - k)
                track.append(p.baseAddress! + k, count: n)
                k += n
            }
        }
        return track
    }

    @Test func aPeriodicVoiceIsVoicedAndNoiseIsNot() throws {
        let t = Self.track(Self.noise(1) + Self.voice(1), block: 1024)
        let noise = try #require(t.loudHalfVoicing([(0.1, 0.9)]))
        let voice = try #require(t.loudHalfVoicing([(1.1, 1.9)]))
        #expect(voice > 0.8, "voice \(voice)")
        #expect(noise < 0.4, "noise \(noise)")
        // Spans are read together, and the louder half of their frames counts: here the voice.
        let both = try #require(t.loudHalfVoicing([(0.1, 0.9), (1.1, 1.9)]))
        #expect(both > 0.8, "voice and noise \(both)")
    }

    @Test func framesFollowTheStreamNotTheBlocks() {
        let x = Self.noise(0.5) + Self.voice(0.7) + Self.noise(0.3, seed: 9)
        let whole = Self.track(x, block: x.count), odd = Self.track(x, block: 37)
        for span in [(0.0, 0.4), (0.45, 0.62), (0.6, 1.1), (1.15, 1.45), (0.0, 1.5)] {
            #expect(whole.loudHalfVoicing([span]) == odd.loudHalfVoicing([span]), "\(span)")
        }
    }

    @Test func whatIsNoLongerHeldIsNil() {
        let t = Self.track(Self.voice(3), block: 512, seconds: 1)
        #expect(t.loudHalfVoicing([(0.1, 0.5)]) == nil)
        #expect(t.loudHalfVoicing([(2.5, 2.9)]) != nil)
        // Not yet heard, or no span at all: nil too.
        #expect(t.loudHalfVoicing([(3.5, 4)]) == nil)
        #expect(t.loudHalfVoicing([]) == nil)
        t.reset()
        #expect(t.loudHalfVoicing([(2.5, 2.9)]) == nil)
    }
}
