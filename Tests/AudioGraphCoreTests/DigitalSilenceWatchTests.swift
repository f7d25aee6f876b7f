@testable import AudioGraphCore
import Testing

@Suite struct DigitalSilenceWatchTests {
    static func block(_ value: Float, frames: Int = 100) -> AudioBuffer {
        let b = AudioBuffer(format: StreamFormat(sampleRate: 1000, channelCount: 2), frameCapacity: frames)
        b.frameLength = frames
        for c in 0..<2 { b.channel(c).update(repeating: 0, count: frames) }
        b.channel(1)[frames / 2] = value  // the second channel alone carries the sound
        return b
    }

    @Test func aStretchOfZerosIsReportedOnceAtItsThreshold() {
        var w = DigitalSilenceWatch(threshold: 250)
        let seen = (0..<4).map { _ in w.observe(Self.block(0)) }
        #expect(seen == [false, false, true, false])
        #expect(w.silentSeconds(rate: 1000) == 0.4)
    }

    @Test func anySampleEndsTheStretchAndTheNextIsReportedAgain() {
        var w = DigitalSilenceWatch(threshold: 200)
        // The faintest noise is not digital silence.
        let seen = [0, 1e-7, 0, 0, 0.5, 0, 0].map { w.observe(Self.block(Float($0))) }
        #expect(seen == [false, false, false, true, false, false, true])
    }
}
