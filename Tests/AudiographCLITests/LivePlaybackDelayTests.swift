import AudioGraphTestSupport
import Foundation
import Testing

/// A live graph's speaker after the machine stalls: what was captured meanwhile plays late,
/// none of it is lost up to what the sink holds (more is reported), and the delay is given
/// back in the next silence.
extension PulseIntegrationTests {
    @Test(.pulseDaemon) func aStalledLivePlayerLosesNothingAndGivesTheDelayBackInSilence() throws {
        let heard = CLI.tempDir().appendingPathComponent("monitor.wav")
        // 1.5 s of sound, 2.5 s of digital silence, 1 s of sound, captured live; the player
        // is frozen for 1 s in the first sound, while the server keeps capturing.
        let sound = Self.signal(seconds: 1.5), silence = [Int16](repeating: 0, count: 40000)
        let r = try Self.recordingMonitor(to: heard) {
            try Self.stalledLivePlayer(sound + silence + Array(sound.prefix(16000)), stall: 1)
        }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stdout.contains(#""type":"overrun","node":"spk""#), "nothing was dropped: \(r.stdout)")
        // The monitor's recording, in 10 ms windows: loud ones are the sound.
        let w = try WAVFixture.read(heard)
        let window = w.rate / 100, threshold = (Int64(1) << (w.bits - 1)) / 32
        let frames = w.samples.count / w.channels
        let loud = stride(from: 0, to: frames - window, by: window).map { start in
            (start..<start + window).contains { abs(Int64(w.samples[$0 * w.channels])) > threshold }
        }
        let seconds = Double(loud.filter { $0 }.count) / 100
        #expect(seconds >= 2.4, "all 2.5 s of sound played: \(seconds) s")
        // The silence between the two sounds, as played: 2.5 s less the delay given back (the
        // stall's second, and what the pipe's 0.1 s chunks add in underruns). Kept, it would
        // play for 2.5 s; left out entirely, the sound would have been cut (checked above).
        var longest = 0, run = 0
        if let first = loud.firstIndex(of: true), let last = loud.lastIndex(of: true) {
            for l in loud[first...last] {
                run = l ? 0 : run + 1
                longest = max(longest, run)
            }
        }
        let gap = Double(longest) / 100
        #expect(gap < 2.0, "the stall's delay was given back in the silence: it played for \(gap) s")
    }

    /// More than the sink holds (2 s) captured while the player is frozen: what does not fit
    /// is dropped, and said, as an `overrun` event and the run's loss line.
    @Test(.pulseDaemon) func aStallLongerThanTheSinkHoldsIsReportedAsLost() throws {
        let r = try Self.stalledLivePlayer(Self.signal(seconds: 4), stall: 3)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#""type":"overrun","node":"spk""#), "\(r.stdout)")
        #expect(r.stderr.contains("audiograph: audio lost: node \"spk\""), "\(r.stderr)")
    }

    /// Runs a live pipe source into `pulse-sink` on `fed` (16 kHz), the player frozen for
    /// `stall` seconds from 0.7 s into the feed, while the server keeps capturing.
    static func stalledLivePlayer(_ fed: [Int16], stall: Double) throws -> CLI.Result {
        let pipe = try #require(Self.pipe)
        let g = try Self.graph("""
            {"nodes": [{"id": "mic", "type": "pulse-source", "params": {"device": "agtest_pipe"}},
                       {"id": "spk", "type": "pulse-sink", "params": {"device": "agtest_sink"}}],
             "connections": [{"from": "mic", "to": "spk"}]}
            """)
        let seconds = Double(fed.count) / 16000
        return try CLI.run(["run", g.path, "--json"], interruptAfter: [0.6 + seconds + stall + 1.4], timeout: 40,
                           during: { Self.feed(fed, to: pipe, after: 0.6) },
                           started: { pid in
                               // 1.7 s after the start: the sound (fed from 0.6 s) is playing by
                               // then. At 1.3 s a slow start had not begun to play, nothing was
                               // delayed, and the silence played whole (2.42 s: 1 run in 10 here).
                               Thread {
                                   usleep(1_700_000)
                                   kill(pid, SIGSTOP)
                                   usleep(UInt32(stall * 1e6))
                                   kill(pid, SIGCONT)
                               }.start()
                           })
    }
}
