@testable import AudioGraphCore
import Testing

/// The gate's intervals: a sound's own time, widened by the output latency and the echo
/// tail, and later still when the device falls behind.
struct PlaybackGateTests {
    @Test func aSoundIsCoveredUntilItsEchoHasComeBack() {
        let g = PlaybackGate()
        g.outputLatency = 0.1
        g.playing(from: 1, to: 2, tail: 0.2)
        #expect(!g.covers(0.5, 0.99))
        #expect(g.covers(1.5, 1.51))
        #expect(g.covers(2.25, 2.29))
        #expect(!g.covers(2.31, 2.4))
        #expect(abs((g.opens(after: 1.9, 2) ?? 0) - 2.3) < 1e-9)
    }

    @Test func aDelayedDeviceWidensWhatIsAlreadyQueued() {
        let g = PlaybackGate()
        g.outputLatency = 0.1
        g.playing(from: 1, to: 2, tail: 0)
        g.playing(from: 3, to: 4, tail: 0)
        g.delay(by: 0.5)
        #expect(g.covers(2.55, 2.59), "the first sound's echo comes 0.5 s later")
        #expect(g.covers(4.55, 4.59), "and the second's")
        #expect(!g.covers(4.61, 4.7))
        g.delay(by: -1)
        #expect(g.covers(4.55, 4.59), "a delay is never taken back")
        // A sound marked afterwards gets the latency as it is then, nothing more.
        g.playing(from: 6, to: 7, tail: 0)
        #expect(!g.covers(7.11, 7.2))
    }
}
