import Foundation
import Synchronization

/// Speech from an `audiograph serve` (SpeechKit's `SKVocalizer`): text in, audio out to play
/// on the device. A connection of its own, opened on the first ``speak(_:voice:rate:)``.
public final class RemoteVocalizer: Sendable {
    /// Speech the server made.
    public struct Speech: Sendable {
        /// Mono samples in -1...1.
        public var samples: [Float]
        /// Their rate.
        public var sampleRate: Int
        /// Whether it was cut short by ``cancel()``.
        public var cancelled: Bool
    }

    private let endpoint: ServerEndpoint
    private let link = Mutex<SocketLink?>(nil)
    /// One speak at a time on the connection, the others waiting their turn in order, as
    /// SKVocalizer queues them: two at once read each other's frames, and the second's wait
    /// for a message took the first's place, which then waited for ever.
    private let turns = Turns()

    /// A vocalizer of `server`'s voices.
    public init(_ server: ServerEndpoint) { endpoint = server }

    /// Speaks `text` with `voice` (flite's: rms, slt, awb, kal16, kal) at `rate` (1: the
    /// voice's pace) and returns the audio once it has all come (its end: SKVocalizer's
    /// didFinishSpeaking). Throws a ``RemoteError`` (`voice`, `busy`, `connection-lost`,
    /// `timeout` when the server goes quiet for the endpoint's timeout, …).
    /// `onStart` hears the speech begin (with its sample rate: willBeginSpeaking) and
    /// `onAudio` gets its samples as they come, to play them at once.
    public func speak(_ text: String, voice: String = "rms", rate: Double = 1,
                      onStart: (@Sendable (_ sampleRate: Int) -> Void)? = nil,
                      onAudio: (@Sendable ([Float]) -> Void)? = nil) async throws -> Speech {
        await turns.take()
        do {
            let speech = try await speakInTurn(text, voice: voice, rate: rate, onStart: onStart, onAudio: onAudio)
            await turns.give()
            return speech
        } catch {
            await turns.give()
            throw error
        }
    }

    /// ``speak(_:voice:rate:onStart:onAudio:)`` in its turn.
    private func speakInTurn(_ text: String, voice: String, rate: Double, onStart: (@Sendable (_ sampleRate: Int) -> Void)?,
                             onAudio: (@Sendable ([Float]) -> Void)?) async throws -> Speech {
        // The connection waits open between speaks; a server or proxy closes it once it has
        // been idle a while (the server's --idle-timeout, 30 s: its `idle` comes before the
        // close). A speak that finds the kept one closed connects again.
        let kept = link.withLock { $0 }
        var opened: SocketLink
        if let kept { opened = kept } else {
            opened = try await SocketLink.open(endpoint)
            link.withLock { $0 = opened }
        }
        let speak: [String: Any] = ["type": "speak", "text": text, "voice": voice, "rate": rate]
        do {
            try await opened.sendOpening(speak)
        } catch let e as RemoteError where kept != nil && ["connection-lost", "idle"].contains(e.code) {
            opened = try await SocketLink.open(endpoint)
            link.withLock { $0 = opened }
            try await opened.sendOpening(speak)
        }
        let l = opened
        do {
            var speech = Speech(samples: [], sampleRate: 16000, cancelled: false)
            // A fault after the speech began (`too-long`: the server's limit) is followed by
            // the speech's end: read to it, so the next speak does not take it for its own.
            var fault: RemoteError?, startedSpeaking = false
            while true {
                // The server sends each sentence as it is made: a silence of `timeout` is a
                // server that is gone without closing.
                switch try await withTimeout(endpoint.timeout, { try await l.receive() }) {
                case .json(let m):
                    switch m["type"] as? String {
                    case "speak-start":
                        startedSpeaking = true
                        // The speech's rate becomes a node's format: one outside the engine's
                        // rates (0, a fraction, 1e12) is the server's fault, not a format to run.
                        if let given = m["rate"] {
                            guard let r = (given as? NSNumber)?.doubleValue, r == r.rounded(), (8000...192_000).contains(r) else {
                                throw RemoteError(code: "protocol", message: "the server's speak-start gives a rate of \(given), not 8000-192000 Hz")
                            }
                            speech.sampleRate = Int(r)
                        }
                        onStart?(speech.sampleRate)
                    case "speak-end":
                        if let fault { throw fault }
                        speech.cancelled = (m["cancelled"] as? Bool) ?? false
                        return speech
                    case "error":
                        let e = RemoteError(serverMessage: m)!
                        guard !startedSpeaking else { fault = e; continue }
                        throw e
                    default: continue
                    }
                case .data(let d):
                    let chunk = d.withUnsafeBytes { raw in
                        (0..<(d.count / 2)).map { Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * $0, as: Int16.self))) / 32768 }
                    }
                    speech.samples += chunk
                    onAudio?(chunk)
                }
            }
        } catch {
            // The next speak connects again (after a protocol fault, what is still coming on
            // this connection is not its own).
            if let code = (error as? RemoteError)?.code, ["connection-lost", "timeout", "protocol"].contains(code) {
                link.withLock { $0?.closeLater(); $0 = nil }
            }
            throw error
        }
    }

    /// Stops speech that is still coming.
    public func cancel() async {
        guard let l = link.withLock({ $0 }) else { return }
        try? await l.send(["type": "cancel-speech"])
    }

    /// Closes the connection.
    public func close() {
        link.withLock { $0?.close(); $0 = nil }
    }
}

/// Turns taken one at a time, in the order asked for.
private actor Turns {
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func take() async {
        guard taken else {
            taken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func give() {
        if waiting.isEmpty { taken = false } else { waiting.removeFirst().resume() }
    }
}
