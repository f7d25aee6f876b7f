import Synchronization

/// Runs `body`, failing with `timeout` after `seconds` whether or not `body` has returned.
///
/// A task group would not do: it waits for every child before it returns, and what the client
/// waits on cannot be cancelled (civetweb's blocking connect on a thread of its own, a
/// continuation waiting for the server's next message). Bounded by the group, a server that
/// accepted the connection and said nothing held `start()` for civetweb's own minute, and one
/// that completed the handshake and never answered held it for ever.
///
/// What `body` gives after the deadline goes to `late` (a connection made too late is closed
/// there); `body` is cancelled at the deadline.
func withTimeout<T: Sendable>(_ seconds: Double, late: (@Sendable (Result<T, Error>) -> Void)? = nil,
                              _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let waiter = Waiter<T>()
    return try await withCheckedThrowingContinuation { c in
        waiter.set(c)
        let timer = Task {
            try await Task.sleep(for: .seconds(seconds))
            if waiter.resume(with: .failure(RemoteError(code: "timeout", message: "no answer from the server in \(seconds) s"))) {
                waiter.cancelWork()
            }
        }
        waiter.setWork(Task {
            let result: Result<T, Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            if waiter.resume(with: result) { timer.cancel() } else { late?(result) }
        })
    }
}

/// The one continuation of ``withTimeout(_:late:_:)``, resumed by whichever comes first.
private final class Waiter<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, Error>?>(nil)
    private let work = Mutex<Task<Void, Never>?>(nil)

    func set(_ c: CheckedContinuation<T, Error>) { continuation.withLock { $0 = c } }
    func setWork(_ t: Task<Void, Never>) { work.withLock { $0 = t } }
    func cancelWork() { work.withLock { $0?.cancel() } }

    /// Resumes the caller with `result` if nothing has yet; whether it did.
    func resume(with result: Result<T, Error>) -> Bool {
        guard let c = continuation.withLock({ c -> CheckedContinuation<T, Error>? in defer { c = nil }; return c }) else { return false }
        c.resume(with: result)
        return true
    }
}
