import AudioGraphCore
import Foundation

/// Beginning and ending a recognition session on a WebSocket: admission (in all and per
/// app), the counters and the one log line at the end, shared by both protocols.
extension WebSocketConnection {
    var wire: ServerMetrics.Wire { route.kind == .vosk ? .vosk : .audiograph }

    /// Admits and starts a session, or says why not (nil, with the fault's code and text).
    func beginSession(_ options: StreamingRecognition.Options, rate: Int, channels: Int, width: Int,
                      onEvent: @escaping @Sendable (EngineEvent) -> Void) -> Result<StreamingRecognition, SocketFault> {
        if let refusal = server.limiter.admit(app: app, appLimit: appLimit) {
            server.metrics.refused(wire, refusal.rawValue)
            let why = switch refusal {
            case .busy: "server busy: \(server.limiter.limit) sessions in flight; try again later or another server"
            case .appBusy: "app \(app ?? "-") is at its limit of \(appLimit ?? 0) sessions"
            case .draining: "server draining (shutting down): connect again to reach another"
            }
            return .failure(SocketFault(code: refusal == .draining ? "draining" : "busy", message: why))
        }
        do {
            let catalog = server.catalog
            let s = try Self.onLargeStack {
                try StreamingRecognition(catalog: catalog, options: options, rate: rate, channels: channels, width: width, onEvent: onEvent)
            }
            server.metrics.began(wire)
            return .success(s)
        } catch {
            server.limiter.release(app: app)
            server.metrics.refused(wire, "bad-session")
            return .failure(SocketFault(code: error is ServerError ? "bad-request" : "session", message: "\(error)"))
        }
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

    /// How a session is ended.
    enum Ending {
        /// Discard what is pending (`cancel`, the client left).
        case cancel
        /// Finish and deliver, ending with `stopped` (the client's `stop`).
        case stop
        /// The client's audio is over (vosk's `eof`): finish and deliver, `end-of-input`.
        case endOfAudio
    }

    /// Ends `session` and waits for its end; the reason.
    @discardableResult
    func endSession(_ session: StreamingRecognition, graph: String, _ ending: Ending) -> EndReason {
        switch ending {
        case .cancel: session.cancel()
        case .stop: session.stop()
        case .endOfAudio: session.finishAudio()
        }
        let reason = session.waitUntilEnded()
        let wall = Date().timeIntervalSince(session.began)
        server.limiter.release(app: app)
        server.metrics.ended(wire, audio: session.audioSeconds, wall: wall)
        if reason == .error { server.metrics.failed(wire) }
        server.logSession(wire, peer: peer, app: app, graph: graph, audio: session.audioSeconds, wall: wall, reason: reason.rawValue)
        return reason
    }
}

/// A fault to report to a client: a code and words.
struct SocketFault: Error {
    var code: String
    var message: String
}
