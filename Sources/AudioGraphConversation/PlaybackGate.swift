import AudioGraphCore
import Synchronization

/// What a graph plays, as its listeners see it: so that an assistant never hears itself.
///
/// With a real speaker and microphone, the graph's own prompts and earcons come back
/// through the microphone. A node that plays (`speech-synth`) marks each sound it starts
/// as an interval of stream time, widened at its end by the playback device's latency (as
/// the sink reports it) and an echo tail; the listeners (`vad`, `recognizer`) treat input in
/// those intervals as not there. Stream time is shared by every node of a graph, and the
/// echo of a sound played at `t` reaches the capture at `t` plus the output latency or
/// later, so an interval marked when the sound starts always covers its echo.
///
/// A `gate` control connection carries one: the players connected to it write it, the
/// listeners read it. All fields are atomics: the render thread writes and reads them, the recognizer's
/// decoding thread reads them; no locks. The last two intervals are kept, enough for a
/// listener one block behind the player.
package final class PlaybackGate: ControlChannel, SilencedSpans {
    private let currentFrom = Atomic<UInt64>((-Double.infinity).bitPattern)
    private let currentUntil = Atomic<UInt64>((-Double.infinity).bitPattern)
    private let previousFrom = Atomic<UInt64>((-Double.infinity).bitPattern)
    private let previousUntil = Atomic<UInt64>((-Double.infinity).bitPattern)
    private let latency = Atomic<UInt64>(0.0.bitPattern)
    private let interruption = Atomic<UInt64>(Double.nan.bitPattern)
    private let interruptions = Atomic<Int>(0)

    /// A gate with nothing played yet.
    package init() {}

    /// A gate with nothing played yet (what a `gate` control connection carries).
    package convenience init(renderReady: Readiness) { self.init() }

    /// The playback device's latency in seconds, as its server reports it (a sink sets it).
    package var outputLatency: Double {
        get { Double(bitPattern: latency.load(ordering: .relaxed)) }
        set { latency.store(max(0, newValue).bitPattern, ordering: .relaxed) }
    }

    /// A sound plays from `start` to `end` (stream seconds); its echo is expected until
    /// `end` plus the output latency plus `tail`.
    package func playing(from start: Double, to end: Double, tail: Double) {
        let until = end + outputLatency + tail
        let from = Double(bitPattern: currentFrom.load(ordering: .relaxed))
        let was = Double(bitPattern: currentUntil.load(ordering: .relaxed))
        if start <= was && start >= from {
            currentUntil.store(max(was, until).bitPattern, ordering: .releasing)
            return
        }
        previousFrom.store(from.bitPattern, ordering: .relaxed)
        previousUntil.store(was.bitPattern, ordering: .relaxed)
        currentUntil.store(until.bitPattern, ordering: .relaxed)
        currentFrom.store(start.bitPattern, ordering: .releasing)
    }

    /// Everything already handed to the device plays `seconds` later than marked (its
    /// server played that much silence while sounds were queued): their echoes come later too.
    package func delay(by seconds: Double) {
        guard seconds > 0 else { return }
        previousUntil.store((Double(bitPattern: previousUntil.load(ordering: .relaxed)) + seconds).bitPattern, ordering: .releasing)
        currentUntil.store((Double(bitPattern: currentUntil.load(ordering: .relaxed)) + seconds).bitPattern, ordering: .releasing)
    }

    /// Whether any of `start..<end` (stream seconds) lies in a sound played or its echo.
    package func covers(_ start: Double, _ end: Double) -> Bool {
        opens(after: start, end) != nil
    }

    /// Where the gate over `start..<end` opens again (the end of the interval covering it), or nil.
    package func opens(after start: Double, _ end: Double) -> Double? {
        let f1 = Double(bitPattern: currentFrom.load(ordering: .acquiring))
        let u1 = Double(bitPattern: currentUntil.load(ordering: .acquiring))
        if start < u1 && end > f1 { return u1 }
        let f0 = Double(bitPattern: previousFrom.load(ordering: .acquiring))
        let u0 = Double(bitPattern: previousUntil.load(ordering: .acquiring))
        if start < u0 && end > f0 { return u0 }
        return nil
    }

    /// The gate's grain over `frames` frames from `sampleTime` at `rate`: `body(offset, count,
    /// covered)` for each 10 ms span in order, `covered` when it lies in what the graph plays.
    /// Render thread: no allocation.
    package func spans(from sampleTime: Int64, frames: Int, rate: Double,
                       _ body: (_ offset: Int, _ count: Int, _ covered: Bool) -> Void) {
        let step = max(1, Int(rate / 100))
        var k = 0
        while k < frames {
            let n = min(step, frames - k)
            let t0 = Double(sampleTime + Int64(k)) / rate
            body(k, n, covers(t0, t0 + Double(n) / rate))
            k += n
        }
    }

    /// The player stopped because the user's speech began at `t` (barge-in): for a listener
    /// that takes that speech as a command. Render thread.
    package func interrupt(at t: Double) {
        interruption.store(t.bitPattern, ordering: .releasing)
        interruptions.add(1, ordering: .releasing)
    }

    /// How many times a player stopped for the user's speech so far (every node on the gate
    /// can read it: an echo canceller knows the user talked over its echo). Render thread.
    package var interruptionCount: Int { interruptions.load(ordering: .acquiring) }

    /// The onset of the last interruption not yet taken, once. Render thread (one listener).
    package func takeInterruption() -> Double? {
        let t = Double(bitPattern: interruption.exchange(Double.nan.bitPattern, ordering: .acquiring))
        return t.isNaN ? nil : t
    }

    /// Forgets every interval (a new run starts from stream time 0).
    package func reset() {
        interruption.store(Double.nan.bitPattern, ordering: .relaxed)
        let never = (-Double.infinity).bitPattern
        currentFrom.store(never, ordering: .relaxed)
        currentUntil.store(never, ordering: .relaxed)
        previousFrom.store(never, ordering: .relaxed)
        previousUntil.store(never, ordering: .relaxed)
    }
}
