import AudioGraph
import AudioGraphClient
import AudioGraphCore
import AudioGraphSpeech
import Foundation
import Synchronization

/// audiograph's own WebSocket protocol at `/audiograph` (CONTRACT.md): the session as the
/// Swift API has it, and speech output like SpeechKit's `SKVocalizer`.
///
/// Client → server, text: `{"type": "start", "graph", "rate", "channels", "format":
/// "s16le"|"s32le", "grammar", "vocabulary", "end-of-speech", "partials", "alternatives",
/// "wake-word", "command-timeout", "session-calibration", "reconnects"}`,
/// `{"type": "stop"}` (finish and deliver), `{"type": "cancel"}` (discard),
/// `{"type": "speak", "text", "voice", "rate"}`, `{"type": "cancel-speech"}`; binary: PCM
/// in the started format. Server → client, text: `{"type": "started", "session", "graph"}`,
/// then the `--json` events (speech-start/end, partial, final, wake, assistant, warning,
/// error, end),
/// `speak-start` {id, text, rate} / binary s16le mono PCM / `speak-end` {id, cancelled};
/// faults as `{"type": "error", "code", "message"}` (the connection stays open).
final class AppProtocol: SocketProtocol, @unchecked Sendable {
    private unowned let socket: WebSocketConnection
    private var session: StreamingRecognition?
    private var graph = ""
    private var sessions = 0
    private var speeches = 0
    private let speechCancelled = Mutex(false)
    private let ended = Mutex(true)
    /// The session's speech, from its events: in progress, and utterances that have ended. A
    /// draining server ends a session that has had an utterance at a pause (a thin device's,
    /// which would never end by itself), or one whose client said it `reconnects` at any
    /// pause; its client connects again, to another server.
    private final class Speech: Sendable {
        struct State { var speaking = false, utterancesEnded = 0 }
        let state = Mutex(State())
    }
    private let speech = Speech()
    /// The session's client starts a new one when the server ends it (`start`'s `reconnects`).
    private var reconnects = false

    init(socket: WebSocketConnection) { self.socket = socket }

    private func fault(_ code: String, _ message: String) -> Bool {
        socket.send(text: JSON.text(["type": "error", "code": code, "message": message]))
        return true
    }

    func text(_ message: String) -> Bool {
        let m: [String: Any]
        switch PeerJSON.object(message.utf8) {
        case .success(let object): m = object
        case .failure(let failure): return fault("bad-json", "\(failure)")
        }
        guard let type = m["type"] as? String else { return fault("bad-message", "a message needs a \"type\" (start, stop, cancel, speak, cancel-speech)") }
        switch type {
        case "start": return start(m)
        case "stop", "cancel":
            guard let s = session else { return fault("state", "\(type): no session in flight (send start first)") }
            session = nil
            socket.endSession(s, type == "cancel" ? .cancel : .stop)
            return true
        case "speak": return speak(m)
        case "cancel-speech":
            speechCancelled.withLock { $0 = true }
            return true
        default:
            return fault("bad-message", "unknown type \"\(type)\" (start, stop, cancel, speak, cancel-speech)")
        }
    }

    /// A `start` message's options, checked: the session options and the audio format, or
    /// the fault naming the field. Pure (fuzzed by `Tools/fuzz`, target `socket`).
    static func startRequest(_ m: [String: Any]) -> Result<(options: StreamingRecognition.Options, rate: Int, channels: Int, width: Int), SessionFault> {
        func bad(_ message: String) -> Result<(options: StreamingRecognition.Options, rate: Int, channels: Int, width: Int), SessionFault> {
            .failure(SessionFault(code: "bad-request", message: "start: " + message))
        }
        guard let graph = m["graph"] as? String ?? (m["graph"] == nil ? "dictation" : nil) else { return bad("graph must be a name") }
        var options = StreamingRecognition.Options(graph: graph)
        guard let rate = m["rate"] == nil ? 16000 : JSONField.whole(m["rate"]),
              let channels = m["channels"] == nil ? 1 : JSONField.whole(m["channels"]) else { return bad("rate and channels must be whole numbers") }
        let format = m["format"] as? String ?? "s16le"
        guard let width = ["s16le": 2, "s32le": 4][format] else { return bad("format \"\(format)\" (s16le or s32le)") }
        guard (8000...192_000).contains(rate), (1...8).contains(channels) else { return bad("rate \(rate) (8000-192000), channels \(channels) (1-8)") }
        if let g = m["grammar"] {
            guard let g = g as? String else { return bad("grammar must be JSGF text") }
            // JSGF's import reads other grammar files beside the grammar: the server's files.
            if GrammarCheck.imports(g) {
                return bad("grammar: import is not allowed (a client's grammar holds all its rules)")
            }
            options.grammar = g
        }
        if let v = m["vocabulary"] {
            guard let v = v as? [Any], v.allSatisfy({ $0 is String }) else { return bad("vocabulary must be a list of words and phrases") }
            options.vocabulary = v.map { $0 as! String }
        }
        if let e = m["end-of-speech"] {
            guard let e = e as? String, ["long", "short", "none"].contains(e) else { return bad("end-of-speech is long, short or none") }
            options.endOfSpeech = e
        }
        if let p = m["partials"] { guard let p = JSONField.number(p)?.doubleValue, (0...10).contains(p) else { return bad("partials is seconds from 0 to 10") }; options.partials = p }
        if let a = m["alternatives"] { guard let a = JSONField.whole(a), (0...10).contains(a) else { return bad("alternatives is a whole number, 0 to 10") }; options.alternatives = a }
        if let w = m["wake-word"] {
            guard let w = w as? String, !w.trimmingCharacters(in: .whitespaces).isEmpty else { return bad("wake-word must be a phrase") }
            options.wakeWord = w
        }
        if let t = m["command-timeout"] {
            guard let t = JSONField.number(t)?.doubleValue, (0.5...60).contains(t) else { return bad("command-timeout is seconds from 0.5 to 60") }
            options.commandTimeout = t
        }
        if let c = m["session-calibration"] {
            guard let c = JSONField.boolean(c) else { return bad("session-calibration is true or false") }
            options.sessionCalibration = c
        }
        if let r = m["reconnects"] {
            guard let r = JSONField.boolean(r) else { return bad("reconnects is true or false") }
            options.reconnects = r
        }
        return .success((options, rate, channels, width))
    }

    private func start(_ m: [String: Any]) -> Bool {
        if let s = session, s.hasEnded { session = nil }  // it ended by itself (end of speech); its end went out
        guard session == nil else { return fault("state", "start: a session is in flight (stop or cancel it first)") }
        let request: (options: StreamingRecognition.Options, rate: Int, channels: Int, width: Int)
        switch Self.startRequest(m) {
        case .success(let r): request = r
        case .failure(let f): return fault(f.code, f.message)
        }
        let (options, rate, channels, width) = request
        let socket = self.socket
        let speech = self.speech
        speech.state.withLock { $0 = Speech.State() }
        switch socket.beginSession(options, rate: rate, channels: channels, width: width, onEvent: { e in
            switch e {
            case .speechStart: speech.state.withLock { $0.speaking = true }
            case .speechEnd: speech.state.withLock { $0.speaking = false; $0.utterancesEnded += 1 }
            default: break
            }
            switch e {
            case .state, .probability, .level, .device: return  // engine detail, not session news
            default: socket.send(text: e.jsonLine)
            }
        }) {
        case .success(let s):
            sessions += 1
            session = s
            graph = options.graph
            reconnects = options.reconnects
            socket.send(text: JSON.text(["type": "started", "session": sessions, "graph": graph]))
            return true
        case .failure(let f):
            return fault(f.code, f.message)
        }
    }

    func binary(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let s = session else { return fault("state", "audio without a session: send start first") }
        if let stop = stopReason(s) {
            session = nil
            _ = fault(stop.code, stop.message)
            socket.endSession(s, .endOfAudio)
            return true
        }
        if !s.push(bytes) {
            // The graph ended by itself (end of speech, no speech): its end event has gone out.
            session = nil
            socket.endSession(s, .endOfAudio)
        }
        return true
    }

    /// Whether the server stops the session now, and why: past its limit, or draining between
    /// utterances. What it has heard is then finished and delivered, then its end. A session
    /// whose client connects again is stopped at its limit at a pause too (30 s later at
    /// most), so the talker is not cut mid-sentence every `--max-session-seconds`; draining, at
    /// any pause (a one-shot client's only after an utterance: it may be about to speak).
    private func stopReason(_ s: StreamingRecognition) -> (code: String, message: String)? {
        let limit = socket.server.configuration.maxSessionSeconds, heard = s.audioSeconds
        let speech = self.speech.state.withLock { $0 }
        if heard > limit && (!reconnects || !speech.speaking || heard > limit + 30) {
            return ("too-long", "session longer than \(Int(limit)) s of audio: stopped")
        }
        if socket.server.limiter.isDraining && !speech.speaking && (reconnects || speech.utterancesEnded > 0) {
            return ("draining", "server draining (shutting down): the session ends between utterances; connect again to reach another")
        }
        return nil
    }

    private func speak(_ m: [String: Any]) -> Bool {
        guard let text = m["text"] as? String else { return fault("bad-request", "speak: needs \"text\"") }
        if m["voice"] != nil && !(m["voice"] is String) { return fault("bad-request", "speak: voice must be a name") }
        let voice = m["voice"] as? String ?? "rms"
        if m["rate"] != nil && !(JSONField.number(m["rate"]).map { (0.25...4).contains($0.doubleValue) } ?? false) {
            return fault("bad-request", "speak: rate is 0.25 to 4 (1: the voice's own pace)")
        }
        let rate = JSONField.number(m["rate"])?.doubleValue ?? 1
        if let refusal = socket.server.limiter.admit(app: socket.app, appLimit: socket.appLimit) {
            socket.server.metrics.refused(socket.wire, refusal.rawValue)
            return fault(refusal == .draining ? "draining" : "busy", "speak: server \(refusal.rawValue)")
        }
        defer { socket.server.limiter.release(app: socket.app) }
        speeches += 1
        let id = speeches
        guard let sampleRate = Vocalizer.sampleRate(of: voice) else {
            return fault("voice", "speak: no voice \"\(voice)\" (voices: \(Vocalizer.voices.joined(separator: ", ")))")
        }
        speechCancelled.withLock { $0 = false }
        socket.send(text: JSON.text(["type": "speak-start", "id": id, "text": text, "rate": sampleRate, "channels": 1, "format": "s16le"]))
        var cancelled = false, lost = false
        // Each sentence as soon as it is made, in 0.1 s frames; a `cancel-speech` sent
        // meanwhile is read by the next message only, so speech goes out whole unless the
        // connection carries the cancel first.
        let (_, end) = SpokenFrames.speak(text, voice: voice, rate: rate, sampleRate: sampleRate, frame: sampleRate / 10,
                                          seconds: socket.server.configuration.maxSessionSeconds) { frame, _ in
            if speechCancelled.withLock({ $0 }) { cancelled = true; return false }
            guard socket.send(binary: PCM16.data(frame)) else { lost = true; return false }
            return true
        }
        let tooLong = end == .tooLong
        if lost { return false }
        if tooLong { _ = fault("too-long", "speak: speech longer than \(Int(socket.server.configuration.maxSessionSeconds)) s of audio: stopped there") }
        socket.send(text: JSON.text(["type": "speak-end", "id": id, "cancelled": cancelled || tooLong]))
        return true
    }

    func closed() {
        if let s = session {
            session = nil
            socket.endSession(s, .cancel)
        }
    }
}
