import AudioGraphConversation
import AudioGraphCore
import Foundation

extension EngineEvent {
    /// The event a CONTRACT.md JSON line (``jsonLine``) describes, or nil for a line that is
    /// not one. The inverse of ``jsonLine`` as far as the line goes: numbers come back rounded
    /// as the line has them, and an error's words come back whole as its message (the line
    /// keeps no separate graph), so the event's line is the line again.
    package init?(jsonLine line: String) {
        guard let data = line.data(using: .utf8),
              let m = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let type = m["type"] as? String
        else { return nil }
        func d(_ key: String, _ o: [String: Any]? = nil) -> Double { ((o ?? m)[key] as? NSNumber)?.doubleValue ?? .nan }
        func i(_ key: String) -> Int { ((m[key] as? NSNumber)?.intValue) ?? 0 }
        func s(_ key: String, _ o: [String: Any]? = nil) -> String { (o ?? m)[key] as? String ?? "" }
        let node = s("node")
        switch type {
        case "state":
            guard let state = EngineState(rawValue: s("state")) else { return nil }
            self = .state(state)
        case "device":
            self = .device(node: node, name: s("name"), format: StreamFormat(sampleRate: d("rate"), channelCount: i("channels")), latency: d("latency"))
        case "level": self = .level(node: node, t: d("t"), rms: d("rms"), peak: d("peak"))
        case "speech-start": self = .speechStart(node: node, t: d("t"), decided: d("decided"))
        case "speech-end": self = .speechEnd(node: node, t: d("t"), decided: d("decided"))
        case "vad-probability": self = .probability(node: node, t: d("t"), p: d("p"))
        case "utterance-end": self = .utteranceEnd(node: node, utterance: i("utterance"), t: d("t"), decided: d("decided"))
        case "partial": self = .partial(node: node, utterance: i("utterance"), text: s("text"))
        case "final":
            let words = (m["words"] as? [[String: Any]] ?? []).map {
                RecognitionResult.Word(word: s("word", $0), start: d("start", $0), end: d("end", $0), confidence: d("confidence", $0))
            }
            let alternatives = (m["alternatives"] as? [[String: Any]] ?? []).map {
                RecognitionResult.Alternative(text: s("text", $0), score: Int(d("score", $0)))
            }
            self = .final(node: node, result: RecognitionResult(
                utterance: i("utterance"), text: s("text"), start: d("start"), end: d("end"), confidence: d("confidence"),
                alternatives: alternatives, words: words))
        case "warning": self = .warning(node: m["node"] as? String, message: s("message"))
        case "speak-start": self = .speakStart(node: node, id: i("id"), text: s("text"), t: d("t"))
        case "speak-end": self = .speakEnd(node: node, id: i("id"), t: d("t"), cancelled: m["cancelled"] as? Bool ?? false)
        case "wake": self = .wake(node: node, phrase: s("phrase"), t: d("t"))
        case "assistant":
            guard let state = AssistantState(rawValue: s("state")) else { return nil }
            self = .assistant(node: node, state: state, reason: (m["reason"] as? String).flatMap(AssistantState.Reason.init(rawValue:)), t: d("t"))
        case "barge-in": self = .bargeIn(node: node, t: d("t"))
        case "earcon": self = .earcon(node: node, name: s("name"), t: d("t"))
        case "echo-delay": self = .conversation(node, .echoDelay(delay: d("delay"), t: d("t")))
        case "echo-held": self = .conversation(node, .echoHeld(below: d("below"), t: d("t")))
        case "overrun": self = .overrun(node: node, lost: i("lost"))
        case "underrun": self = .underrun(node: node, count: i("count"), frames: i("frames"))
        case "error":
            self = .error(EngineError(EngineError.Code(rawValue: s("code")) ?? .recognizer, s("message")))
        case "end":
            guard let reason = EndReason(rawValue: s("reason")) else { return nil }
            self = .end(reason, suggestion: m["suggestion"] as? String)
        default:
            return nil
        }
    }
}
