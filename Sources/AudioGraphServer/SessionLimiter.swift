import Synchronization

/// Admission: how many sessions may be in flight, in all and per app key, and whether the
/// server still takes new ones (not while draining). A refusal is immediate, never a wait.
public final class SessionLimiter: Sendable {
    /// Why a session was not begun.
    public enum Refusal: String, Error, Sendable {
        /// The server is at its session limit.
        case busy
        /// The app is at its own limit.
        case appBusy = "app-busy"
        /// SIGTERM: the server finishes what it has and takes nothing new.
        case draining
    }

    private struct State {
        var active = 0
        var perApp: [String: Int] = [:]
        var draining = false
    }

    private let state = Mutex(State())
    /// Sessions in all.
    public let limit: Int

    /// Up to `limit` sessions at once.
    public init(limit: Int) { self.limit = limit }

    /// Takes a place for a session of `app` (limited to `appLimit`), or says why not.
    /// Pair with ``release(app:)``.
    public func admit(app: String?, appLimit: Int?) -> Refusal? {
        state.withLock { s in
            if s.draining { return .draining }
            if s.active >= limit { return .busy }
            if let app, let appLimit, s.perApp[app, default: 0] >= appLimit { return .appBusy }
            s.active += 1
            if let app { s.perApp[app, default: 0] += 1 }
            return nil
        }
    }

    /// Gives a session's place back.
    public func release(app: String?) {
        state.withLock { s in
            s.active -= 1
            if let app { s.perApp[app, default: 0] -= 1 }
        }
    }

    /// Refuses new sessions from now on.
    public func drain() { state.withLock { $0.draining = true } }
    /// Whether draining.
    public var isDraining: Bool { state.withLock { $0.draining } }
    /// Sessions in flight.
    public var active: Int { state.withLock { $0.active } }
}
