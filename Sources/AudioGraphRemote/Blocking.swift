import Dispatch
import Synchronization

/// Runs async client work from a thread that may block (a node's `prepare` on the control
/// thread, a speech worker): waits for it and returns its result. Never on the render thread.
func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let r: Result<T, any Error>
        do { r = .success(try await work()) } catch { r = .failure(error) }
        result.withLock { $0 = r }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}
