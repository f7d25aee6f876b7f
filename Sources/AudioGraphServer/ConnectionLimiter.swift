import Synchronization

/// How many client connections (Wyoming and WebSocket) may be open at once. Each holds a
/// thread for its life (civetweb's workers, a Wyoming connection's own), idle or not, so
/// without a limit open pages or a flood of idle connections took every HTTP worker: health
/// checks and new clients waited with no session running. A connection over the limit is
/// answered `busy` and closed at once; plain HTTP requests (health, metrics, the page) have
/// workers of their own.
final class ConnectionLimiter: Sendable {
    /// Connections at once.
    let limit: Int
    private let open = Mutex(0)

    init(limit: Int) { self.limit = limit }

    /// Takes a place for a connection, or false when all are taken. Pair with ``release()``.
    func admit() -> Bool {
        open.withLock { n in
            guard n < limit else { return false }
            n += 1
            return true
        }
    }

    /// Gives a connection's place back.
    func release() { open.withLock { $0 -= 1 } }

    /// Connections open now.
    var count: Int { open.withLock { $0 } }

    /// The refusal's words, for both protocols' error.
    var refusal: String { "server busy: \(limit) connections open (--max-connections); try again later" }
}
