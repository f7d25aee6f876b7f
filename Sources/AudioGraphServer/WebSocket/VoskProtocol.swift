import AudioGraphCore
import AudioGraphClient
import Foundation
import Synchronization

/// vosk-server's WebSocket protocol (its `asr_server.py`), so its clients work unchanged:
/// an optional `{"config": {"sample_rate", "words", "max_alternatives", "phrase_list"}}`,
/// then binary s16le mono frames, each answered by one JSON message (a final result if one
/// is ready, else `{"partial": ...}`), `{"reset": 1}` (the final so far, then a fresh start)
/// and `{"eof": 1}` (the final result, then the server closes).
final class VoskProtocol: SocketProtocol, @unchecked Sendable {
    private unowned let socket: WebSocketConnection
    private var config = VoskConfig()
    private var session: StreamingRecognition?
    private let graph = "dictation"
    private let heard = Mutex(Heard())
    private struct Heard {
        var finals: [String] = []
        var partial = ""
    }

    init(socket: WebSocketConnection) { self.socket = socket }

    func text(_ message: String) -> Bool {
        let object: [String: Any]
        switch PeerJSON.object(message.utf8) {
        case .success(let o): object = o
        case .failure(let failure): return socket.send(text: JSON.text(["error": "\(failure)", "code": "bad-json"]))
        }
        if let given = object["config"] {
            guard let c = given as? [String: Any] else { return socket.send(text: JSON.text(["error": "config: expected an object", "code": "bad-config"])) }
            if let problem = self.config.apply(c) { return socket.send(text: JSON.text(["error": "config: " + problem, "code": "bad-config"])) }
            return true  // vosk-server does not answer a config
        }
        if object["eof"] != nil {
            flushFinals(last: true)
            socket.close(code: 1000)
            return false
        }
        if object["reset"] != nil {
            flushFinals(last: true)
            return true
        }
        return socket.send(text: JSON.text(["error": "unknown message: expected config, eof or reset", "code": "bad-message"]))
    }

    func binary(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if session == nil {
            var options = StreamingRecognition.Options(graph: graph)
            options.partials = 0.25
            options.alternatives = config.alternatives > 0 ? config.alternatives : nil
            if let phrases = config.phrases, !phrases.isEmpty {
                // Their words the dictionary lacks are pronounced, as a vocabulary's are.
                options.grammar = "#JSGF V1.0;\ngrammar phrases;\npublic <phrase> = " + phrases.joined(separator: " | ") + ";\n"
                options.vocabulary = phrases
            }
            switch socket.beginSession(options, rate: config.rate, channels: 1, width: 2, onEvent: { [weak self] e in self?.event(e) }) {
            case .success(let s): session = s
            case .failure(let f):
                socket.send(text: JSON.text(["error": f.message, "code": f.code]))
                // "Try again later" for a full or draining server; the session's own fault
                // (a phrase list too large to search) is not a matter of waiting.
                socket.close(code: ["busy", "app-busy", "draining"].contains(f.code) ? 1013 : 1008)
                return false
            }
        }
        if session!.audioSeconds > socket.server.configuration.maxSessionSeconds {
            socket.send(text: JSON.text(["error": "session longer than \(Int(socket.server.configuration.maxSessionSeconds)) s of audio", "code": "too-long"]))
            flushFinals(last: true)
            socket.close(code: 1009)
            return false
        }
        session!.push(bytes)
        // As vosk-server's AcceptWaveform: the answer is about this message's audio, decoded
        // (else a client that sends fast would read only what came before).
        session!.waitUntilHeard()
        // One answer a message: a final if one is ready, else the partial so far.
        let reply = heard.withLock { h -> String in
            h.finals.isEmpty ? JSON.text(["partial": h.partial]) : h.finals.removeFirst()
        }
        return socket.send(text: reply)
    }

    func closed() {
        if let s = session {
            session = nil
            socket.endSession(s, .cancel)
        }
    }

    /// Ends the session in flight (if any) and sends its finals; the last message is the
    /// final result vosk's `FinalResult` would give (empty text when nothing was said).
    private func flushFinals(last: Bool) {
        if let s = session {
            session = nil
            socket.endSession(s, .endOfAudio)
        }
        let finals = heard.withLock { h -> [String] in
            defer { h = Heard() }
            return h.finals
        }
        for f in finals { socket.send(text: f) }
        if finals.isEmpty { socket.send(text: config.alternatives > 0 ? JSON.text(["alternatives": [["text": "", "confidence": 0]]]) : JSON.text(["text": ""])) }
    }

    /// The session's events (delivery thread): partials and finals in vosk's shape.
    private func event(_ e: EngineEvent) {
        switch e {
        case .partial(_, _, let text): heard.withLock { $0.partial = text }
        case .final(_, let r):
            var out: [String: Any]
            if config.alternatives > 0 {
                out = ["alternatives": ([(r.text, r.confidence)] + r.alternatives.dropFirst().map { ($0.text, Double($0.score)) })
                    .prefix(config.alternatives).map { ["text": $0.0, "confidence": ($0.1 * 1000).rounded() / 1000] }]
            } else {
                out = ["text": r.text]
                if config.words {
                    out["result"] = r.words.map { ["word": $0.word, "start": ($0.start * 1000).rounded() / 1000,
                                                  "end": ($0.end * 1000).rounded() / 1000, "conf": ($0.confidence * 1000).rounded() / 1000] }
                }
            }
            let line = JSON.text(out)
            heard.withLock { $0.finals.append(line); $0.partial = "" }
        default: break
        }
    }
}
