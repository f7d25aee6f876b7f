import AudioGraphClient
import AudioGraphTestSupport
import Foundation
import Synchronization
import Testing

/// The Swift client against a real `audiograph serve` (the debug binary, started per test on
/// a free port), with flite speech.
@Suite(.serialized) struct RemoteSessionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A running server; stopped (SIGKILL) with ``kill()``.
    final class Server: @unchecked Sendable {
        let process = Process()
        let port: Int

        private let log: URL
        private var killed = false

        init(port: Int = 0, arguments: [String] = []) throws {
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("ag-client-serve-\(UUID().uuidString).log")
            self.log = log
            FileManager.default.createFile(atPath: log.path, contents: nil)
            process.executableURL = RemoteSessionTests.root.appendingPathComponent(".build/debug/audiograph")
            process.arguments = ["serve", "--wyoming", "none", "--http", "127.0.0.1:\(port)", "--graphs",
                                 RemoteSessionTests.root.appendingPathComponent("Graphs").path] + arguments
            process.standardError = try FileHandle(forWritingTo: log)
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            var found: Int?
            while Date() < deadline, found == nil, process.isRunning {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                if text.contains("serve: ready"), let r = text.range(of: #"websocket on 127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                    found = Int(text[r].split(separator: ":").last!)
                }
                usleep(50_000)
            }
            guard let found else { throw RemoteError(code: "test", message: "the server did not start") }
            self.port = found
        }

        var endpoint: ServerEndpoint { ServerEndpoint(url: URL(string: "ws://127.0.0.1:\(port)")!) }

        func kill() {
            if process.isRunning {
                Foundation.kill(process.processIdentifier, SIGKILL)
            } else if !killed {
                // Gone before the test stopped it: say how, and what it logged (a test that
                // then failed to connect is explained here).
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                FileHandle.standardError.write(Data("test server on port \(port) had exited (\(process.terminationReason == .uncaughtSignal ? "signal" : "status") \(process.terminationStatus)); its log:\n\(text)\n".utf8))
            }
            killed = true
            process.waitUntilExit()
        }

        deinit { kill() }
    }

    static func samples(_ text: String, rate: Int = 16000) throws -> [Float] {
        let wav = try #require(Flite.speech(text))
        let converted = try #require(Flite.convert(wav, rate: rate, channels: 1))
        let d = try Data(contentsOf: converted)
        // A canonical WAV from sox: the data chunk after a 44-byte header.
        return d.dropFirst(44).withUnsafeBytes { raw in
            (0..<(raw.count / 2)).map { Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * $0, as: Int16.self))) / 32768 }
        }
    }

    static var hasFlite: Bool { Flite.isAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/sox") }

    @Test(.enabled(if: hasFlite, "flite or sox is not installed")) func aRemoteSessionHearsAndAVocalizerSpeaks() async throws {
        let server = try Server()
        defer { server.kill() }
        let session = RemoteRecognitionSession(server.endpoint, options: .init(graph: "dictation", sampleRate: 22050, partials: 0.1))
        try await session.start()
        let audio = try Self.samples("find japanese restaurants nearby", rate: 22050)
        for at in stride(from: 0, to: audio.count, by: 2205) {
            try await session.append(Array(audio[at..<min(audio.count, at + 2205)]))
        }
        try await session.append([Float](repeating: 0, count: 22050))
        try await session.stop()
        var finals: [RemoteResult] = []
        var partials = 0
        var end: String?
        for try await e in session.events {
            switch e {
            case .final(let r): finals.append(r)
            case .partial: partials += 1
            case .end(let reason, _): end = reason
            default: break
            }
        }
        #expect(end == "stopped")
        #expect(finals.first?.text.contains("japanese") == true, "\(finals)")
        #expect(finals.first.map { !$0.words.isEmpty && $0.confidence > 0 } == true)
        #expect(partials > 0)

        let vocalizer = RemoteVocalizer(server.endpoint)
        let heard = Mutex<(start: Int?, samples: Int, startedFirst: Bool)>((nil, 0, false))
        let speech = try await vocalizer.speak("The kitchen light is on.", onStart: { rate in
            heard.withLock { $0.start = rate; $0.startedFirst = $0.samples == 0 }
        }, onAudio: { chunk in heard.withLock { $0.samples += chunk.count } })
        #expect(speech.sampleRate == 16000 && speech.samples.count > 8000 && !speech.cancelled)
        let seen = heard.withLock { $0 }
        #expect(seen.start == 16000 && seen.startedFirst && seen.samples == speech.samples.count, "\(seen)")
        await #expect(throws: RemoteError.self) { _ = try await vocalizer.speak("hi", voice: "nobody") }
        vocalizer.close()
    }

    /// Speech past the server's limit is `too-long`, and the next speech on the same
    /// connection is its own: the server ends the cut speech after the error, and that end
    /// was taken for the next one's (which came back empty).
    @Test(.enabled(if: hasFlite, "flite or sox is not installed")) func speechPastTheLimitIsAnErrorAndTheNextSpeaks() async throws {
        let server = try Server(arguments: ["--max-session-seconds", "1"])
        defer { server.kill() }
        let vocalizer = RemoteVocalizer(server.endpoint)
        do {
            _ = try await vocalizer.speak("The kitchen light is on. The front door is locked. It is seven degrees outside.")
            Issue.record("speech past the limit was not an error")
        } catch let e as RemoteError {
            #expect(e.code == "too-long", "\(e)")
        }
        let next = try await vocalizer.speak("Hi.")
        #expect(!next.cancelled && next.samples.count > 1600, "\(next.samples.count) samples, cancelled \(next.cancelled)")
        vocalizer.close()
    }

    /// A thin device runs for weeks: each session and each vocalizer's connection has a
    /// socket, a libwebsockets context and a service thread, all given back when it ends.
    /// Many sessions and connections one after another leave the process's threads and
    /// descriptors as they were.
    @Test func sessionsAndConnectionsOneAfterAnotherLeaveNothingBehind() async throws {
        let server = try Server()
        defer { server.kill() }
        func count(_ folder: String) -> Int { (try? FileManager.default.contentsOfDirectory(atPath: folder).count) ?? -1 }
        func oneOfEach() async throws {
            let session = RemoteRecognitionSession(server.endpoint, options: .init(graph: "dictation"))
            try await session.start()
            try await session.append([Float](repeating: 0, count: 1600))
            await session.cancel()
            for try await _ in session.events {}
            let vocalizer = RemoteVocalizer(server.endpoint)
            _ = try await vocalizer.speak("Hi.")
            vocalizer.close()
        }
        try await oneOfEach()  // what the first makes once (the lazily made) is not counted
        try await Task.sleep(for: .milliseconds(500))
        let before = (threads: count("/proc/self/task"), files: count("/proc/self/fd"))
        for _ in 0..<40 { try await oneOfEach() }
        try await Task.sleep(for: .milliseconds(500))
        let after = (threads: count("/proc/self/task"), files: count("/proc/self/fd"))
        #expect(after.threads <= before.threads + 2 && after.files <= before.files + 2, "threads \(before.threads) -> \(after.threads), descriptors \(before.files) -> \(after.files)")
    }

    @Test func aDroppedConnectionFailsTheSessionAndTheNextReconnects() async throws {
        let server = try Server()
        let port = server.port
        let session = RemoteRecognitionSession(server.endpoint)
        try await session.start()
        try await session.append([Float](repeating: 0, count: 1600))
        server.kill()
        do {
            for try await _ in session.events {}
            Issue.record("the session ended without an error")
        } catch let e as RemoteError {
            #expect(e.code == "connection-lost", "\(e)")
        }
        // The next session: the server comes back on the same port while the client retries.
        let endpoint = ServerEndpoint(url: URL(string: "ws://127.0.0.1:\(port)")!, timeout: 5, attempts: 8)
        let restart = Task.detached { try Server(port: port) }
        let next = RemoteRecognitionSession(endpoint)
        try await next.start()
        await next.cancel()
        var reason: String?
        for try await e in next.events { if case .end(let r, _) = e { reason = r } }
        #expect(reason == "cancelled")
        try await restart.value.kill()
    }

    /// A session is one connection: a second start, or two at once, is a `state` error and
    /// opens nothing (one opened a second connection and read both into the one `events`).
    /// A start that failed may be tried again.
    @Test func aSessionStartsOnce() async throws {
        let server = try Server()
        defer { server.kill() }
        let session = RemoteRecognitionSession(server.endpoint)
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    do { try await session.start(); return "started" } catch let e as RemoteError { return e.code } catch { return "\(error)" }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.sorted() == ["started", "state", "state", "state"], "\(outcomes)")
        await #expect(throws: RemoteError.self) { try await session.start() }
        await session.cancel()
        var ends = 0
        for try await e in session.events { if case .end = e { ends += 1 } }
        #expect(ends == 1)
        let refused = RemoteRecognitionSession(server.endpoint, options: .init(graph: "nosuch"))
        await #expect(throws: RemoteError.self) { try await refused.start() }
        do {
            try await refused.start()
        } catch let e as RemoteError {
            #expect(e.code == "bad-request", "tried again, the server's answer, not \(e)")
        }
    }

    /// Speaks asked of one vocalizer at once take turns on its connection, each getting its
    /// own speech whole. Before, they read each other's frames, and one waited for ever.
    @Test(.enabled(if: hasFlite, "flite or sox is not installed"), .timeLimit(.minutes(1)))
    func speaksAtOnceTakeTurns() async throws {
        let server = try Server()
        defer { server.kill() }
        let vocalizer = RemoteVocalizer(server.endpoint)
        defer { vocalizer.close() }
        let texts = ["One.", "The kitchen light is on, and the front door is locked.", "Two.", "Three."]
        var alone: [Int] = []
        for t in texts { alone.append(try await vocalizer.speak(t).samples.count) }
        let together = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for (i, t) in texts.enumerated() { group.addTask { (i, try await vocalizer.speak(t).samples.count) } }
            return try await group.reduce(into: [Int](repeating: 0, count: texts.count)) { $0[$1.0] = $1.1 }
        }
        #expect(together == alone, "each its own speech whole: \(together) against \(alone) alone")
    }

    @Test func aWrongKeyOrAnUnknownGraphIsAClearError() async throws {
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("ag-client-keys-\(getpid())")
        try "kiosk s3cret\n".write(to: keys, atomically: true, encoding: .utf8)
        let server = try Server(arguments: ["--keys", keys.path])
        defer { server.kill() }
        var wrong = server.endpoint
        wrong.app = ("kiosk", "nope")
        await #expect(throws: RemoteError(code: "key", message: "missing or wrong app key: connect with ?app=ID&key=KEY")) {
            try await RemoteRecognitionSession(wrong).start()
        }
        var right = server.endpoint
        right.app = ("kiosk", "s3cret")
        do {
            try await RemoteRecognitionSession(right, options: .init(graph: "nosuch")).start()
            Issue.record("an unknown graph started")
        } catch let e as RemoteError {
            #expect(e.code == "bad-request" && e.message.contains("nosuch"), "\(e)")
        }
    }
}
