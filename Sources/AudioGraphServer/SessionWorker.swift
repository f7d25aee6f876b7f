import AudioGraph
import AudioGraphCore
import CCloseOnExec
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A recognition session in a process of its own (`audiograph serve --isolate`): the server's
/// side of it. A crash of the session's graph (a fault in a C library, a trap) ends that
/// process, and so that session with an `error` event naming the signal; the server and its
/// other sessions go on.
///
///     server                                   audiograph serve --session-worker
///     push / heard / finish / stop / cancel ──► stdin:  kind byte, UInt32 LE length, payload
///     onEvent ◄── reader thread ◄────────────── stdout: a start line, then the --json event
///                                                        lines, `#heard` acks between them
///
/// The worker loads its own models (a session starts about a model load later than one in
/// the server's process) and exits when its session has ended and its input is closed.
public final class SessionWorker: @unchecked Sendable {
    /// What the server sends; each a kind byte, a little-endian UInt32 length, the payload.
    enum Message: UInt8 {
        /// PCM in the session's format.
        case audio = 0x61
        /// Asks for a `#heard` line once what was sent is decoded and delivered.
        case heard = 0x68
        /// The end of the client's audio.
        case finish = 0x66
        /// Stop: what was sent is still delivered.
        case stop = 0x73
        /// Cancel: discard and end.
        case cancel = 0x63
    }

    /// The first line the server writes: the session to build.
    struct Start: Codable {
        var options: StreamingRecognition.Options
        var rate: Int
        var channels: Int
        var width: Int
    }

    /// The worker's first line: started, or why not (`code` `bad-request` for the client's
    /// mistake, `session` for the engine's).
    struct Reply: Codable {
        var started: Bool
        var failed: String?
        var code: String?
    }

    /// A worker that could not start its session: the engine's words.
    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    private let pid: pid_t
    private let toWorker: Int32
    private let fromWorker: Int32
    private let writing = Mutex<Bool>(true)  // whether the pipe to the worker is open
    private let state = MonotonicCondition()
    private var ended: EndReason?
    private var heardAsked = 0
    private var heardAcked = 0

    /// Takes a worker of `pool` (this binary's `serve --session-worker` with the catalogue's
    /// flags) and starts its session; returns once the session runs. Throws ``ServerError`` for
    /// the client's mistake (unknown graph, bad format), ``StartFailure`` for the engine's.
    init(pool: WorkerPool, options: StreamingRecognition.Options, rate: Int, channels: Int, width: Int,
         onEvent: @escaping @Sendable (EngineEvent) -> Void) throws {
        let worker = try pool.take(options.graph)
        (pid, toWorker, fromWorker) = (worker.pid, worker.toWorker, worker.fromWorker)
        let lines = LineReader(fd: fromWorker)
        var start = try JSONEncoder().encode(Start(options: options, rate: rate, channels: channels, width: width))
        start.append(0x0A)
        let sent = start.withUnsafeBytes { writeFully(toWorker, $0) } == nil
        guard sent, let first = lines.next(), let reply = try? JSONDecoder().decode(Reply.self, from: Data(first.utf8)), reply.started
        else {
            closeInput()
            let reply = lines.last.flatMap { try? JSONDecoder().decode(Reply.self, from: Data($0.utf8)) }
            let status = Self.reap(pid)
            close(fromWorker)
            let why = reply?.failed ?? "the session's process ended before its session started (\(status))"
            if reply?.code == "bad-request" { throw ServerError(why) }
            throw StartFailure(description: why)
        }
        let reader = Thread { [state, pid, fromWorker] in
            var end: EndReason?
            while let line = lines.next() {
                if line == Self.heardLine {
                    state.lock(); self.heardAcked += 1; state.broadcast(); state.unlock()
                    continue
                }
                guard let event = EngineEvent(jsonLine: line) else { continue }
                if case .end(let reason, _) = event {
                    end = reason
                    // Its input is no longer read: closing it lets the worker exit.
                    self.closeInput()
                }
                onEvent(event)
            }
            let status = Self.reap(pid)
            close(fromWorker)
            if end == nil {
                onEvent(.error(EngineError(.recognizer, "the session's process ended (\(status)) before its session did; this session is lost, the server and its other sessions go on")))
                onEvent(.end(.error))
                end = .error
            }
            self.closeInput()
            state.lock(); self.ended = end; state.broadcast(); state.unlock()
        }
        reader.stackSize = 256 << 10
        reader.start()
    }

    deinit { closeInput() }

    /// Closes the pipe to the worker (once): it reads no more, and exits after its end.
    private func closeInput() {
        writing.withLock { open in if open { open = false; close(toWorker) } }
    }

    /// The line a worker writes for ``Message/heard``.
    static let heardLine = "{\"type\":\"#heard\"}"

    /// Sends a message; false once the session has ended (or its process has).
    @discardableResult
    func send(_ kind: Message, _ payload: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) -> Bool {
        writing.withLock { open in
            guard open else { return false }
            // The record's header (kind, little-endian length) on the stack: no allocation per message.
            let n = UInt32(payload.count)
            var header = (kind.rawValue, UInt8(truncatingIfNeeded: n), UInt8(truncatingIfNeeded: n >> 8),
                          UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 24))
            let ok = withUnsafeBytes(of: &header) { writeFully(toWorker, $0) } == nil && (payload.isEmpty || writeFully(toWorker, payload) == nil)
            if !ok { open = false; close(toWorker) }
            return ok
        }
    }

    /// Waits until the worker has decoded and delivered what was sent (at most 2.5 s).
    func waitUntilHeard() {
        state.lock()
        heardAsked += 1
        let target = heardAsked
        state.unlock()
        guard send(.heard) else { return }
        let deadline = monotonicSeconds() + 2.5
        state.lock()
        while heardAcked < target && ended == nil && state.wait(seconds: deadline - monotonicSeconds()) {}
        state.unlock()
    }

    /// Whether the session has ended (its process too).
    var hasEnded: Bool {
        state.lock(); defer { state.unlock() }
        return ended != nil
    }

    /// Blocks until the session and its process have ended; the session's reason.
    func waitUntilEnded() -> EndReason {
        state.lock(); defer { state.unlock() }
        while ended == nil { state.wait() }
        return ended!
    }

    /// Starts `command` with pipes for its stdin and stdout (stderr is the server's: its log)
    /// and no other descriptor. Every pipe end is close-on-exec (set before any other worker
    /// starts: spawns take turns), so no worker holds another's pipes open.
    static func spawn(_ command: [String]) throws -> WorkerPool.Started {
        let (pid, toWorker, fromWorker) = try spawning.withLock { _ in try spawnAlone(command) }
        return WorkerPool.Started(pid: pid, toWorker: toWorker, fromWorker: fromWorker)
    }

    private static let spawning = Mutex<Void>(())

    private static func spawnAlone(_ command: [String]) throws -> (pid_t, Int32, Int32) {
        var input: [Int32] = [0, 0], output: [Int32] = [0, 0]
        guard pipe(&input) == 0 else { throw StartFailure(description: "no pipe for a session process: \(String(cString: strerror(errno)))") }
        guard pipe(&output) == 0 else {
            close(input[0]); close(input[1])
            throw StartFailure(description: "no pipe for a session process: \(String(cString: strerror(errno)))")
        }
        for fd in input + output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        // Nothing else of the server's: a descriptor some library opened without
        // close-on-exec (a client's socket) would keep that connection open past its close.
        _ = ag_spawn_close_from(&actions, 3)
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, command[0], &actions, nil, &argv, environ)
        close(input[0]); close(output[1])
        guard rc == 0 else {
            close(input[1]); close(output[0])
            throw StartFailure(description: "cannot start a session process (\(command[0])): \(String(cString: strerror(rc)))")
        }
        return (pid, input[1], output[0])
    }

    /// Waits for the worker to exit; how it ended, in words.
    static func reap(_ pid: pid_t) -> String {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal != 0 ? "killed by signal \(signal)" : "exit status \((status >> 8) & 0xff)"
    }

}

/// Lines from a file descriptor, read as they come.
final class LineReader: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 65536)
    /// The last line read (a worker's failure reply comes before it exits).
    private(set) var last: String?

    init(fd: Int32) { self.fd = fd }

    /// Exactly `count` bytes into the start of `bytes` (the stream's binary part); false at
    /// the end of the stream before them.
    func read(into bytes: inout [UInt8], count: Int) -> Bool {
        var have = min(count, buffer.count)
        for k in 0..<have { bytes[k] = buffer[k] }
        buffer.removeSubrange(..<have)
        while have < count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + have, count - have) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            have += n
        }
        return true
    }

    /// The next line without its newline; nil at the end of the stream.
    func next() -> String? {
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                last = line
                return line
            }
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }
}
