import AudioGraphConversation
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

    /// The 10 ms grain the listeners mute by: every frame once, in order, covered where the
    /// sound plays (one queue's blocks and the remote recognizer's sends walk the same spans).
    @Test func spansWalkEveryFrameOnceInTheGatesGrain() {
        let g = PlaybackGate()
        g.playing(from: 0.105, to: 0.125, tail: 0)  // 105 ms to 125 ms: it touches the first three spans of 100-131 ms
        var seen: [(Int, Int, Bool)] = []
        g.spans(from: 1600, frames: 500, rate: 16000) { seen.append(($0, $1, $2)) }
        #expect(seen.map(\.0) == [0, 160, 320, 480] && seen.map(\.1) == [160, 160, 160, 20])
        #expect(seen.map(\.2) == [true, true, true, false])
    }
}
