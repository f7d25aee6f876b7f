import Dispatch
import Foundation

/// Maps the signals that ask a run to end (SIGINT from Ctrl-C; SIGTERM from systemd, Docker
/// and most supervisors; SIGHUP from a closed terminal) to engine actions: the first to
/// `stop` (drain, deliver the final result, finalise files), any second one to `cancel`.
/// Nothing runs in signal context: a dispatch source delivers each signal on a queue, as
/// gst-launch posts a message rather than acting in the handler. Installed before the model
/// loads; a first signal that comes before ``attach(stop:cancel:)`` is acted on when it is
/// called, and a second one ends the process there and then: a start that does not come (a
/// server that takes the connection and never answers, a slow disk) is no reason to ignore
/// being asked twice.
final class SignalHandler: @unchecked Sendable {
    static let signals = [SIGINT, SIGTERM, SIGHUP]
    private let queue = DispatchQueue(label: "audiograph.signals")
    private var sources: [DispatchSourceSignal] = []
    /// Signals received (on `queue`).
    private var count = 0
    private var actions: (stop: @Sendable () -> Void, cancel: @Sendable () -> Void)?

    init() {
        for s in Self.signals {
            signal(s, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: s, queue: queue)
            source.setEventHandler { [unowned self] in
                count += 1
                if actions == nil && count == 2 {
                    StandardStreams.writeError("audiograph: cancelled while starting\n")
                    exit(0)
                }
                act(count)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// What the signals do from now on; acts at once on signals already received.
    func attach(stop: @escaping @Sendable () -> Void, cancel: @escaping @Sendable () -> Void) {
        queue.sync {
            actions = (stop, cancel)
            for n in stride(from: 1, through: min(count, 2), by: 1) { act(n) }
        }
    }

    /// Whether a signal has asked the run to end (before it could start, for instance).
    var received: Bool { queue.sync { count > 0 } }

    private func act(_ n: Int) {
        guard let actions else { return }
        if n == 1 { actions.stop() } else if n == 2 { actions.cancel() }
    }

    func cancel() {
        for s in sources { s.cancel() }
        for s in Self.signals { signal(s, SIG_DFL) }
    }
}
