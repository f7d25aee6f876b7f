import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The session processes of `serve --isolate`, started one ahead for each graph sessions have
/// asked for: the spare loads that graph's model while it waits, so a session that takes it
/// starts with its model loaded (a process started for the session would load it while the
/// client's audio waits). Taking a spare starts the next one for the same graph.
final class WorkerPool: Sendable {
    /// A started worker: its pid and the server's ends of its pipes.
    struct Started: Sendable {
        var pid: pid_t
        var toWorker: Int32
        var fromWorker: Int32
    }

    let command: [String]
    private let spares = Mutex<[String: Started]>([:])

    /// `command`: this binary's `serve --session-worker` with the catalogue's flags. Spares
    /// are asked for served graphs only (a session checks its graph's name first).
    init(command: [String]) { self.command = command }

    /// Starts a spare for `graph`, on a thread of its own, if it has none.
    func refill(_ graph: String) {
        let thread = Thread { [self] in
            guard spares.withLock({ $0[graph] == nil }),
                  let started = try? SessionWorker.spawn(command + ["--warm", graph]) else { return }
            let extra: Started? = spares.withLock { s in
                if s[graph] == nil { s[graph] = started; return nil }
                return started
            }
            if let extra { Self.dismiss(extra) }
        }
        thread.stackSize = 256 << 10
        thread.start()
    }

    /// The spare for `graph` if it is alive (and a new one on its way), else a worker started now.
    func take(_ graph: String) throws -> Started {
        defer { refill(graph) }
        if let s = spares.withLock({ s -> Started? in s.removeValue(forKey: graph) }) {
            var status: Int32 = 0
            if waitpid(s.pid, &status, WNOHANG) == 0 { return s }
            close(s.toWorker)
            close(s.fromWorker)
        }
        return try SessionWorker.spawn(command)
    }

    /// Ends a worker that has no session: its input closes, it exits.
    static func dismiss(_ s: Started) {
        close(s.toWorker)
        close(s.fromWorker)
        Thread.detachNewThread { _ = SessionWorker.reap(s.pid) }
    }
}
