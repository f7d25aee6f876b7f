import AudioGraphCore
import Foundation

/// Beginning a recognition session for any protocol: admission (in all and per app), the
/// session built on a large stack, and a watcher that, whenever and however it ends (the
/// client's stop, its own end of speech, a cancel, an error), gives its place back, counts it
/// and writes its log line, exactly once.
extension SpeechServer {
    /// Admits and starts a session, or says why not.
    func beginSession(_ wire: ServerMetrics.Wire, peer: String, app: String?, appLimit: Int?,
                      options: StreamingRecognition.Options, rate: Int, channels: Int, width: Int,
                      onEvent: @escaping @Sendable (EngineEvent) -> Void) -> Result<StreamingRecognition, SessionFault> {
        if let refusal = limiter.admit(app: app, appLimit: appLimit) {
            metrics.refused(wire, refusal.rawValue)
            let why = switch refusal {
            case .busy: "server busy: \(limiter.limit) sessions in flight; try again later or another server"
            case .appBusy: "app \(app ?? "-") is at its limit of \(appLimit ?? 0) sessions"
            case .draining: "server draining (shutting down): connect again to reach another"
            }
            return .failure(SessionFault(code: refusal == .draining ? "draining" : (refusal == .busy ? "busy" : "app-busy"), message: why))
        }
        let session: StreamingRecognition
        do {
            if let workers {
                session = try StreamingRecognition(pool: workers, catalog: catalog, options: options, rate: rate, channels: channels,
                                                   width: width, onEvent: onEvent)
            } else {
                let catalog = self.catalog
                session = try Self.onLargeStack {
                    try StreamingRecognition(catalog: catalog, options: options, rate: rate, channels: channels, width: width, onEvent: onEvent)
                }
            }
        } catch {
            limiter.release(app: app)
            metrics.refused(wire, "bad-session")
            return .failure(SessionFault(code: error is ServerError ? "bad-request" : "session", message: "\(error)"))
        }
        metrics.began(wire)
        let watcher = Thread { [self] in
            let reason = session.waitUntilEnded()
            let wall = monotonicSeconds() - session.began
            limiter.release(app: app)
            metrics.ended(wire, audio: session.audioSeconds, wall: wall)
            if reason == .error { metrics.failed(wire) }
            logSession(wire, peer: peer, app: app, graph: options.graph, audio: session.audioSeconds, wall: wall, reason: reason.rawValue)
        }
        watcher.stackSize = 256 << 10
        watcher.start()
        return .success(session)
    }

    /// How a session worker is started: this binary, `serve --session-worker`, the same graphs
    /// and settings.
    static func workerCommand(_ configuration: ServerConfiguration) -> [String] {
        var exe = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &exe, exe.count - 1)
        let path = n > 0 ? String(decoding: exe[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        return [path, "serve", "--session-worker", "--graphs", configuration.graphs] + configuration.settings.flatMap { ["--set", $0] }
    }

    /// Runs `work` on a thread with an 8 MiB stack and waits for it. civetweb's workers have
    /// small stacks (Debian builds it with a fixed size), too small for compiling a grammar
    /// and loading a decoder, which recurse deeply in PocketSphinx.
    static func onLargeStack<T>(_ work: @escaping () throws -> T) throws -> T {
        nonisolated(unsafe) var result: Result<T, any Error>?
        nonisolated(unsafe) let body = work
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            result = Result { try body() }
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        done.wait()
        return try result!.get()
    }
}

/// A fault to report to a client: a code and words.
struct SessionFault: Error {
    var code: String
    var message: String
}
