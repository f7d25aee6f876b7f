import Dispatch
import Foundation

/// Maps SIGINT to engine actions: the first to `first` (stop), the second to `second`
/// (cancel). Nothing runs in signal context: a dispatch source delivers the signal on a
/// queue, as gst-launch posts a message rather than acting in the handler.
final class SignalHandler: @unchecked Sendable {
    private let source: DispatchSourceSignal
    private var count = 0

    init(first: @escaping @Sendable () -> Void, second: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "audiograph.signals"))
        source.setEventHandler { [unowned self] in
            count += 1
            if count == 1 { first() } else { second() }
        }
        source.resume()
    }

    func cancel() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
