import Foundation
import Testing

@testable import AudioGraphCore

/// The down-mix to mono of a stereo input whose second channel is the first's negative (some
/// laptops' microphones): the channel is turned once two windows of sound say so, the same
/// whatever the block sizes; in-phase, uncorrelated and quiet channels are left as they are.
@Suite struct ChannelPolarityTests {
    static let rate = 16000.0

    /// A harmonic "voice" at 0.2 from 0.5 s on, digital silence before.
    static func voice(seconds: Double) -> [Float] {
        (0..<Int(seconds * rate)).map { i in
            let t = Double(i) / rate
            guard t >= 0.5 else { return 0 }
            let w = 2 * Double.pi * 140 * t
            let v: Double = sin(w) + 0.5 * sin(2 * w) + 0.3 * sin(3 * w)
            return Float(0.2 * v)
        }
    }

    /// Mixes `left`/`right` in blocks of `block` frames; the mono mix and the changes.
    static func mix(_ left: [Float], _ right: [Float], block: Int) -> ([Float], [ChannelPolarity.Change]) {
        let polarity = ChannelPolarity(channels: 2, window: Int(rate / 10))
        let buffer = AudioBuffer(format: StreamFormat(sampleRate: rate, channelCount: 2), frameCapacity: block)
        var out = [Float](repeating: 0, count: left.count)
        var changes: [ChannelPolarity.Change] = []
        var at = 0
        while at < left.count {
            let n = min(block, left.count - at)
            buffer.channel(0).update(from: Array(left[at..<(at + n)]), count: n)
            buffer.channel(1).update(from: Array(right[at..<(at + n)]), count: n)
            out.withUnsafeMutableBufferPointer { o in
                polarity.mix(buffer, into: o.baseAddress! + at, count: n) { changes.append($0) }
            }
            at += n
        }
        return (out, changes)
    }

    @Test func anInvertedChannelIsTurnedAfterTwoWindowsOfSound() {
        let left = Self.voice(seconds: 2), right = left.map { -$0 }
        let (out, changes) = Self.mix(left, right, block: 512)
        #expect(changes.count == 1 && changes[0].channel == 1 && changes[0].inverted && changes[0].correlation < -0.99)
        // Two windows (0.2 s) after the sound begins at 0.5 s, on the window's last frame.
        #expect(changes.first?.frame == 11200, "\(changes)")
        #expect(out[0..<11200].allSatisfy { abs($0) < 1e-6 }, "the plain mean before: silence")
        #expect((11200..<32000).allSatisfy { abs(out[$0] - left[$0]) < 1e-6 }, "the channels' sum after")
    }

    @Test(arguments: [1, 37, 160, 4096])
    func theDecisionIsTheSameWhateverTheBlocks(block: Int) {
        let left = Self.voice(seconds: 1.5), right = left.map { -$0 }
        let (expected, changesExpected) = Self.mix(left, right, block: 1600)
        let (out, changes) = Self.mix(left, right, block: block)
        #expect(out == expected && changes.map(\.frame) == changesExpected.map(\.frame))
    }

    @Test func inPhaseUncorrelatedAndQuietChannelsAreKept() {
        let left = Self.voice(seconds: 2)
        var seed: UInt64 = 7
        let noise = left.indices.map { _ -> Float in
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(bitPattern: seed >> 11) % 1000) / 5000
        }
        for right in [left, noise, left.map { -$0 * 0.0001 }] {
            let (out, changes) = Self.mix(left, right, block: 512)
            #expect(changes.isEmpty)
            #expect(left.indices.allSatisfy { abs(out[$0] - (left[$0] + right[$0]) / 2) < 1e-6 })
        }
    }

    @Test func aChannelInPhaseAgainIsTurnedBack() {
        let left = Self.voice(seconds: 3)
        let right = left.indices.map { $0 < 24000 ? -left[$0] : left[$0] }
        let (_, changes) = Self.mix(left, right, block: 256)
        #expect(changes.map(\.inverted) == [true, false], "\(changes)")
        #expect(changes.last.map { $0.frame > 24000 && $0.frame <= 27200 } == true)
    }
}
