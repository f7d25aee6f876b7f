import AudioGraphTestSupport
import Foundation
import Synchronization
import Testing

/// A thin device (`run --server`, live input) outlives its server: a server restarted
/// mid-run (a deploy, a crash; a drain's end, the server's session limit and an idle proxy
/// end a session the same way) is connected to again, and the run goes on.
extension PulseIntegrationTests {
    /// Dictation through a server killed after the first utterance's final and started again
    /// on the same port: the second utterance is recognised too, on the run's clock (its
    /// times go on from the first's, its number is 2), and the run says what happened.
    /// Before, the run ended with an error at the kill.
    @Test(.flite, .pulseDaemon) func aLiveRunOutlivesItsServersRestart() throws {
        let user = try #require(Flite.script([("find japanese restaurants nearby", 6), ("turn on the kitchen light", 3)]))
        let samples = try WAVFixture.read(user).samples.map { Int16(truncatingIfNeeded: $0) }
        let pipe = try #require(Self.pipe)
        let port = try #require(LoopbackSocket.freePort())
        let first = try RemoteRecognizerTests.Server(port: port)
        let second = Mutex<RemoteRecognizerTests.Server?>(nil)
        defer {
            first.kill()
            second.withLock { $0?.kill() }
        }
        let seconds = Double(samples.count) / 16000
        // The restart may still be under way when a failing run has ended: its server is
        // killed too, once it is up.
        let restarted = DispatchSemaphore(value: 0)
        defer { _ = restarted.wait(timeout: .now() + 60) }
        let r = try CLI.run(["run", "graphs/dictation.json", "--json", "--set", "mic.device=agtest_pipe",
                             "--server", "ws://127.0.0.1:\(port)"],
                            interruptAfter: [3 + seconds + 3], timeout: seconds + 60,
                            during: {
                                Thread.detachNewThread { Self.feed(samples, to: pipe, after: 3) }
                                // The first utterance is over at about 5 s, its final at 6; the second begins at 11.
                                usleep(7_500_000)
                                first.kill()
                                let again = try? RemoteRecognizerTests.Server(port: port)
                                second.withLock { $0 = again }
                                restarted.signal()
                            })
        #expect(r.status == 0, "\(r.stderr)")
        let events = r.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let finals = events.filter { $0["type"] as? String == "final" }
        let texts = finals.map { $0["text"] as? String ?? "" }
        try #require(finals.count == 2, "\(r.stdout)")
        #expect(texts[0].contains("japanese restaurants") && texts[1].contains("kitchen light"), "\(texts)")
        #expect(finals.map { $0["utterance"] as? Int } == [1, 2])
        let (end1, start2) = ((finals[0]["end"] as? Double) ?? 0, (finals[1]["start"] as? Double) ?? 0)
        #expect(start2 > end1 + 4, "the second utterance at \(start2) s, the first ended at \(end1) s")
        let warnings = events.filter { $0["type"] as? String == "warning" }.compactMap { $0["message"] as? String }
        #expect(warnings.contains { $0.contains("connecting again") } && warnings.contains { $0.contains("connected again") }, "\(warnings)")
        #expect(second.withLock { $0 != nil }, "the second server did not start")
    }

    /// A thin device that has heard no word yet (waiting for its wake word, maybe for hours)
    /// on a server told to stop (SIGTERM): its session says it reconnects, so the server ends
    /// it at once and exits, and the device is connecting again. Before, the server waited its
    /// full 30 s for the session, then cut the connection.
    @Test(.pulseDaemon) func aDrainingServerLetsAQuietDeviceGoAtOnce() throws {
        let pipe = try #require(Self.pipe)
        let server = try RemoteRecognizerTests.Server()
        defer { server.kill() }
        let drained = Mutex<Double?>(nil)
        let r = try CLI.run(["run", "graphs/dictation.json", "--json", "--set", "mic.device=agtest_pipe", "--server", server.url],
                            interruptAfter: [9], timeout: 60,
                            during: {
                                Thread.detachNewThread { Self.feed([Int16](repeating: 0, count: 16000 * 8), to: pipe, after: 0) }
                                usleep(3_000_000)
                                let sent = Date()
                                kill(server.process.processIdentifier, SIGTERM)
                                server.process.waitUntilExit()
                                drained.withLock { $0 = Date().timeIntervalSince(sent) }
                            })
        #expect(r.status == 0, "\(r.stderr)")
        let seconds = try #require(drained.withLock { $0 }, "the server did not exit")
        #expect(seconds < 5 && server.process.terminationStatus == 0, "the server exited \(server.process.terminationStatus) after \(seconds) s")
        let warnings = r.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["type"] as? String == "warning" }.compactMap { $0["message"] as? String }
        #expect(warnings.contains { $0.contains("connecting again") }, "\(warnings)")
    }

    /// A server lost while a thin assistant listens for a command (after the wake word): the
    /// command goes with the session, and the next session waits for the wake word. The run
    /// says so, `assistant` back to waiting with reason `lost`, so its earcons and state do
    /// not stay at "listening". Before, the last state the graph saw was `listening`.
    @Test(.flite, .pulseDaemon) func anAssistantThatLosesItsServerMidCommandGoesBackToWaiting() throws {
        let user = try #require(Flite.script([("hello computer", 0.6), ("turn on the kitchen light", 3)]))
        let samples = try WAVFixture.read(user).samples.map { Int16(truncatingIfNeeded: $0) }
        let pipe = try #require(Self.pipe)
        let server = try RemoteRecognizerTests.Server()
        defer { server.kill() }
        let out = CLI.tempDir().appendingPathComponent("answers.wav")
        let r = try CLI.run(["run", "graphs/assistant-remote.json", "--json", "--set", "mic.device=agtest_pipe",
                             "--server", server.url, "--sink", out.path],
                            interruptAfter: [10], timeout: 60,
                            during: {
                                Thread.detachNewThread { Self.feed(samples, to: pipe, after: 3) }
                                // The wake word is heard at about 4.3 s; the command is said from 4.5 to 6 s.
                                usleep(5_200_000)
                                server.kill()
                            })
        #expect(r.status == 0, "\(r.stderr)")
        let events = r.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let states = events.filter { $0["type"] as? String == "assistant" }.map { "\($0["state"] ?? "")/\($0["reason"] ?? "-")" }
        try #require(states.contains("listening/-"), "the wake word was not heard: \(states)")
        #expect(states.last == "waiting-for-wake-word/lost", "\(states)")
        #expect(!events.contains { $0["type"] as? String == "final" && ($0["text"] as? String ?? "").contains("kitchen") }, "the command was heard before the kill")
    }
}
