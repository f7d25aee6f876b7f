import Glibc

/// The open files (`ulimit -n`) a server needs for its connections, and the process's limit
/// raised toward it. Out of descriptors, a listener cannot take the connections waiting for
/// it: civetweb then spins on its listening socket (a core at 100 % until a connection
/// closes) and Wyoming's clients wait unanswered. Debian starts processes at 1024 (systemd's
/// soft limit) under a far higher hard limit, which a process may raise itself to.
enum OpenFileLimit {
    /// Descriptors a server of `configuration` may hold at once: every connection the limit
    /// allows on each protocol (a Wyoming one is accepted before it is counted), civetweb's
    /// workers for plain requests (16) and its queue of accepted connections (20), the
    /// session processes' pipes with `--isolate`, and a margin for files, models and logs.
    static func needed(by configuration: ServerConfiguration) -> Int {
        2 * configuration.maxConnections + 16 + 20 + (configuration.isolateSessions ? 4 * configuration.maxSessions : 0) + 64
    }

    /// Raises the soft limit to `needed` when it is lower, as far as the hard limit allows;
    /// the limit after, and the hard limit.
    static func raise(toAtLeast needed: Int) -> (soft: Int, hard: Int) {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_ENUM, &limit) == 0 else { return (Int.max, Int.max) }
        // Unlimited (RLIM_INFINITY, all ones) counts as Int.max.
        func count(_ v: rlim_t) -> Int { v > rlim_t(Int.max) ? Int.max : Int(v) }
        if count(limit.rlim_cur) < needed {
            var raised = limit
            raised.rlim_cur = min(rlim_t(needed), limit.rlim_max)
            if setrlimit(RLIMIT_NOFILE_ENUM, &raised) == 0 { limit = raised }
        }
        return (count(limit.rlim_cur), count(limit.rlim_max))
    }

    private static var RLIMIT_NOFILE_ENUM: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
