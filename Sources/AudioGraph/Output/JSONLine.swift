import AudioGraphConversation
import AudioGraphCore
import Foundation

/// Builds one-line JSON objects in a fixed key order (CONTRACT.md's event lines).
public struct JSONLine {
    private var parts: [String] = []

    /// An empty object.
    public init() {}

    /// Adds a string field.
    public mutating func add(_ key: String, _ value: String) { parts.append("\(Self.quote(key)):\(Self.quote(value))") }
    /// Adds a number field, rounded to `digits` decimals.
    public mutating func add(_ key: String, _ value: Double, digits: Int = 3) {
        parts.append("\(Self.quote(key)):\(Self.number(value, digits: digits))")
    }
    /// Adds an integer field.
    public mutating func add(_ key: String, _ value: Int) { parts.append("\(Self.quote(key)):\(value)") }
    /// Adds a boolean field.
    public mutating func add(_ key: String, _ value: Bool) { parts.append("\(Self.quote(key)):\(value)") }
    /// Adds already-encoded JSON.
    public mutating func add(_ key: String, raw: String) { parts.append("\(Self.quote(key)):\(raw)") }

    /// The object text.
    public var text: String { "{" + parts.joined(separator: ",") + "}" }

    /// A JSON string literal.
    public static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20: out += String(format: "\\u%04x", u.value)
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    /// A finite JSON number with at most `digits` decimals, no trailing zeros.
    public static func number(_ v: Double, digits: Int = 3) -> String {
        guard v.isFinite else { return "null" }
        var p = 1.0
        for _ in 0..<digits { p *= 10 }
        let r = (v * p).rounded() / p
        if r == r.rounded() && abs(r) < 1e15 { return String(Int64(r)) }
        var s = String(format: "%.\(digits)f", r)
        while s.hasSuffix("0") { s.removeLast() }
        return s
    }
}

extension EngineEvent {
    /// The CONTRACT.md JSON line for this event.
    public var jsonLine: String {
        var j = JSONLine()
        switch self {
        case .state(let s):
            j.add("type", "state"); j.add("state", s.rawValue)
        case .device(let node, let name, let format, let latency):
            j.add("type", "device"); j.add("node", node); j.add("name", name); j.add("rate", Int(format.sampleRate))
            j.add("channels", format.channelCount); j.add("latency", latency)
        case .level(let node, let t, let rms, let peak):
            j.add("type", "level"); j.add("node", node); j.add("t", t); j.add("rms", rms, digits: 2); j.add("peak", peak, digits: 2)
        case .speechStart(let node, let t, let decided):
            j.add("type", "speech-start"); j.add("t", t); j.add("decided", decided); j.add("node", node)
        case .speechEnd(let node, let t, let decided):
            j.add("type", "speech-end"); j.add("t", t); j.add("decided", decided); j.add("node", node)
        case .probability(let node, let t, let p):
            j.add("type", "vad-probability"); j.add("t", t); j.add("p", p); j.add("node", node)
        case .utteranceEnd(let node, let utterance, let t, let decided):
            j.add("type", "utterance-end"); j.add("utterance", utterance); j.add("t", t); j.add("decided", decided); j.add("node", node)
        case .partial(let node, let utterance, let text):
            j.add("type", "partial"); j.add("utterance", utterance); j.add("text", text); j.add("node", node)
        case .final(let node, let r):
            j.add("type", "final"); j.add("utterance", r.utterance); j.add("text", r.text)
            j.add("start", r.start); j.add("end", r.end); j.add("confidence", r.confidence)
            j.add("alternatives", raw: "[" + r.alternatives.map { a in
                var x = JSONLine(); x.add("text", a.text); x.add("score", a.score); return x.text
            }.joined(separator: ",") + "]")
            j.add("words", raw: "[" + r.words.map { w in
                var x = JSONLine(); x.add("word", w.word); x.add("start", w.start); x.add("end", w.end)
                x.add("confidence", w.confidence); return x.text
            }.joined(separator: ",") + "]")
            j.add("node", node)
        case .warning(let node, let message):
            j.add("type", "warning"); if let node { j.add("node", node) }; j.add("message", message)
        case .speakStart(let node, let id, let text, let t):
            j.add("type", "speak-start"); j.add("node", node); j.add("id", id); j.add("text", text); j.add("t", t)
        case .speakEnd(let node, let id, let t, let cancelled):
            j.add("type", "speak-end"); j.add("node", node); j.add("id", id); j.add("t", t); j.add("cancelled", cancelled)
        case .custom(let node, let e):
            switch e.base as? ConversationEvent {
            case .wake(let phrase, let t)?:
                j.add("type", "wake"); j.add("node", node); j.add("phrase", phrase); j.add("t", t)
            case .assistant(let state, let reason, let t)?:
                j.add("type", "assistant"); j.add("node", node); j.add("state", state.rawValue)
                if let reason { j.add("reason", reason.rawValue) }
                j.add("t", t)
            case .bargeIn(let t)?:
                j.add("type", "barge-in"); j.add("node", node); j.add("t", t)
            case .earcon(let name, let t)?:
                j.add("type", "earcon"); j.add("node", node); j.add("name", name); j.add("t", t)
            case .echoDelay(let delay, let t)?:
                j.add("type", "echo-delay"); j.add("node", node); j.add("delay", delay); j.add("t", t)
            case .echoHeld(let below, let t)?:
                j.add("type", "echo-held"); j.add("node", node); j.add("below", below); j.add("t", t)
            case nil:
                // A node module's own kind: its Swift type's name, so a line is still written.
                j.add("type", "custom"); j.add("node", node); j.add("kind", String(describing: type(of: e.base)))
            }
        case .overrun(let node, let lost):
            j.add("type", "overrun"); j.add("node", node); j.add("lost", lost)
        case .underrun(let node, let count, let frames):
            j.add("type", "underrun"); j.add("node", node); j.add("count", count); j.add("frames", frames)
        case .error(let e):
            j.add("type", "error"); j.add("message", e.description); j.add("code", e.code.rawValue)
            if let n = e.node { j.add("node", n) }
            if let f = e.file { j.add("file", f) }
            if let p = e.parameter { j.add("parameter", p) }
            if let s = e.suggestion { j.add("suggestion", s) }
        case .end(let reason, let suggestion):
            j.add("type", "end"); j.add("reason", reason.rawValue)
            if let suggestion { j.add("suggestion", suggestion) }
        }
        return j.text
    }
}
