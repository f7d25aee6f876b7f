import AudioGraphCore
import Dispatch
import Foundation

/// A value made on a thread of its own (a model being loaded) while the caller goes on;
/// `wait` returns it, or the error that stopped it, once it is ready.
final class BackgroundLoad<Value>: @unchecked Sendable {
    private var result: Result<Value, EngineError>?
    private let done = DispatchSemaphore(value: 0)

    /// Starts `make` on a thread called `name`.
    init(name: String, _ make: @escaping @Sendable () throws(EngineError) -> Value) {
        let t = Thread { [self] in
            do throws(EngineError) { result = .success(try make()) } catch { result = .failure(error) }
            done.signal()
        }
        t.name = name
        t.start()
    }

    /// Blocks until the value is made (at once if it is); once only.
    func wait() -> Result<Value, EngineError> {
        done.wait()
        return result!
    }
}
