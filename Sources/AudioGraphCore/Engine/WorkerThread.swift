import Dispatch
import Foundation
import Synchronization

/// A thread of a node's own (a decoder, a file writer, a reconnecting device) with a stop
/// request and a join that sleeps until the thread has ended rather than polling.
///
/// The worker sleeps on `wake` (or a queue's own wake-up) between pieces of work and checks
/// `isStopping`; `requestStop` sets it and wakes the worker; `join` waits for the end.
package final class WorkerThread: @unchecked Sendable {
    private let name: String
    private let interactive: Bool
    private let stopping = Atomic<Bool>(false)
    private let exited = Atomic<Bool>(true)
    private let exitedSignal = DispatchSemaphore(value: 0)
    /// The running thread's `pthread_self()` (0 between runs).
    private let running = Atomic<UInt>(0)
    /// Signalled by `requestStop`, and by whoever has work for the worker.
    public let wake = Wakeup()

    /// A worker whose thread will be called `name`; `interactive`: scheduled as user-interactive
    /// work (the render thread).
    public init(name: String, interactive: Bool = false) {
        self.name = name
        self.interactive = interactive
    }

    /// Starts the thread running `body`. Call again after `join` for another run.
    public func start(_ body: @escaping @Sendable (WorkerThread) -> Void) {
        stopping.store(false, ordering: .relaxed)
        exited.store(false, ordering: .releasing)
        let box = UncheckedSendable(self)
        let t = Thread {
            box.value.running.store(UInt(pthread_self()), ordering: .releasing)
            body(box.value)
            box.value.running.store(0, ordering: .releasing)
            box.value.exited.store(true, ordering: .releasing)
            box.value.exitedSignal.signal()
        }
        t.name = name
        if interactive { t.qualityOfService = .userInteractive }
        t.start()
    }

    /// Whether the caller is this worker's thread (a callback it runs, such as an event handler).
    public var isCurrent: Bool {
        running.load(ordering: .acquiring) == UInt(pthread_self())
    }

    /// Whether the worker has been asked to stop.
    public var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Asks the worker to stop and wakes it. Any thread; no lock.
    public func requestStop() {
        stopping.store(true, ordering: .releasing)
        wake.signal()
    }

    /// Waits until the thread has ended (at once if it is not running). Not real-time.
    public func join() {
        // A run that ended without a join may have left a signal behind: check, not count.
        while !exited.load(ordering: .acquiring) { exitedSignal.wait() }
    }
}
