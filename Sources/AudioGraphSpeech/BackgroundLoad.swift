import AudioGraphCore
import Dispatch
import Foundation

/// A value made on a thread of its own (a model being loaded) while the caller goes on;
/// `wait` returns it, or the error that stopped it, once it is ready.
final class BackgroundLoad<Value>: @unchecked Sendable {
    private var result: Result<Value, EngineError>?
    private let thread: WorkerThread

    /// Starts `make` on a thread called `name`.
    init(name: String, _ make: @escaping @Sendable () throws(EngineError) -> Value) {
        thread = WorkerThread(name: name)
        let box = UncheckedSendable(self)
        thread.start { _ in
            do throws(EngineError) { box.value.result = .success(try make()) } catch { box.value.result = .failure(error) }
        }
    }

    /// Blocks until the value is made (at once if it is): joins the thread.
    func wait() -> Result<Value, EngineError> {
        thread.join()
        return result!
    }
}
