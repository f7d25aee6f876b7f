import AudioGraphCore
import Foundation

/// Beginning and ending a recognition session on a WebSocket (``SpeechServer/beginSession``
/// does the admission and the accounting).
extension WebSocketConnection {
    var wire: ServerMetrics.Wire { route.kind == .vosk ? .vosk : .audiograph }

    /// Admits and starts a session, or says why not.
    func beginSession(_ options: StreamingRecognition.Options, rate: Int, channels: Int, width: Int,
                      onEvent: @escaping @Sendable (EngineEvent) -> Void) -> Result<StreamingRecognition, SessionFault> {
        server.beginSession(wire, peer: peer, app: app, appLimit: appLimit, options: options, rate: rate, channels: channels,
                            width: width, onEvent: onEvent)
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
    func endSession(_ session: StreamingRecognition, _ ending: Ending) -> EndReason {
        switch ending {
        case .cancel: session.cancel()
        case .stop: session.stop()
        case .endOfAudio: session.finishAudio()
        }
        return session.waitUntilEnded()
    }
}
