import Foundation
import Testing

/// Runs the built `audiograph` executable and captures what it prints (the
/// AssertExecuteCommand style of swift-argument-parser's test helpers).
enum CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
        var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `AUDIOGRAPH_CACHE` for every run of this test process.
    static let cacheFolder = FileManager.default.temporaryDirectory.appendingPathComponent("ag-cli-cache-\(getpid())")

    static var binary: URL {
        let debug = packageRoot.appendingPathComponent(".build/debug/audiograph")
        return debug
    }

    /// Runs `audiograph ARGS` from the package root; `interruptAfter` sends `signal` (SIGINT
    /// unless given) at those times, `interruptWhen` once when the output satisfies it;
    /// with `readStdoutWhen`, nothing is read from stdout until it returns true (a reader that
    /// stops reading; past `timeout` it is read anyway, and the wait recorded as an issue).
    static func run(_ args: [String], interruptAfter: [Double] = [], signal: Int32 = SIGINT, timeout: Double = 60,
                    environment: [String: String] = [:], during: (@Sendable () -> Void)? = nil,
                    interruptWhen: (@Sendable (String) -> Bool)? = nil,
                    readStdoutWhen: (@Sendable () -> Bool)? = nil,
                    started: (@Sendable (Int32) -> Void)? = nil, directory: URL? = nil) throws -> Result {
        let p = Process()
        p.executableURL = binary
        p.arguments = args
        // The dictionary cuts of the tests' many temporary dictionaries go to a folder of this
        // test run's, not the user's cache (a test may name its own).
        p.environment = ProcessInfo.processInfo.environment.merging(["AUDIOGRAPH_CACHE": cacheFolder.path]) { $1 }
            .merging(environment) { $1 }
        p.currentDirectoryURL = directory ?? packageRoot
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        var interruptWhen = interruptWhen
        try p.run()
        started?(p.processIdentifier)
        // `during` (a feed into the test daemon's pipe) is waited for before this returns: a
        // feed still writing after the run would reach the next test's capture.
        let duringDone = DispatchSemaphore(value: 0)
        if let during { Thread { during(); duringDone.signal() }.start() } else { duringDone.signal() }
        let started = Date()
        var pending = interruptAfter
        var outData = Data(), errData = Data()
        let holder = Holder()
        let reader = Thread {
            if let readStdoutWhen {
                while !readStdoutWhen() {
                    if Date().timeIntervalSince(started) > timeout {
                        Issue.record("audiograph \(args): stdout held unread for \(timeout) s")
                        break
                    }
                    usleep(10000)
                }
            }
            // Read as it comes, so `interruptWhen` can watch the output.
            var all = Data()
            while true {
                let d = out.fileHandleForReading.availableData
                if d.isEmpty { break }
                all.append(d)
                holder.progress(all)
            }
            holder.set(out: all)
        }
        reader.start()
        let errReader = Thread { holder.set(err: err.fileHandleForReading.readDataToEndOfFile()) }
        errReader.start()
        while p.isRunning {
            let elapsed = Date().timeIntervalSince(started)
            if let next = pending.first, elapsed >= next {
                pending.removeFirst()
                kill(p.processIdentifier, signal)
            }
            if let when = interruptWhen, when(String(decoding: holder.sofar(), as: UTF8.self)) {
                interruptWhen = nil
                kill(p.processIdentifier, signal)
            }
            if elapsed > timeout {
                // SIGKILL: the child inherits this thread's blocked signals, SIGTERM among them.
                kill(p.processIdentifier, SIGKILL)
                Issue.record("audiograph \(args) did not end within \(timeout) s")
                break
            }
            usleep(5000)
        }
        p.waitUntilExit()
        if duringDone.wait(timeout: .now() + timeout) == .timedOut {
            Issue.record("audiograph \(args): what ran beside it (during:) did not end within \(timeout) s of the run")
        }
        (outData, errData) = holder.take()
        return Result(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A fresh temporary directory for one test.
    static func tempDir() -> URL {
        let u = FileManager.default.temporaryDirectory.appendingPathComponent("ag-cli-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
        return u
    }
}

/// Collects pipe output from reader threads.
final class Holder: @unchecked Sendable {
    private let lock = NSLock()
    private var out: Data?
    private var err: Data?

    private var partial = Data()
    func set(out d: Data) { lock.withLock { out = d } }
    func progress(_ d: Data) { lock.withLock { partial = d } }
    func sofar() -> Data { lock.withLock { partial } }
    func set(err d: Data) { lock.withLock { err = d } }

    func take() -> (Data, Data) {
        while true {
            let done: (Data, Data)? = lock.withLock {
                guard let o = out, let e = err else { return nil }
                out = nil
                err = nil
                return (o, e)
            }
            if let done { return done }
            usleep(1000)
        }
    }
}
