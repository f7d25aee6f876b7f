@_exported import AudioGraphResults

/// A final result of a remote session: the engine's own `RecognitionResult` (words with
/// times and confidences, alternatives), shared through the AudioGraphResults module. The
/// name of the first client release.
public typealias RemoteResult = RecognitionResult

/// What a remote session reports, in stream order (the `--json` events of CONTRACT.md).
public enum RemoteEvent: Sendable, Equatable {
    /// Speech began at `t` s of the session's audio.
    case speechStart(t: Double)
    /// Speech ended at `t`.
    case speechEnd(t: Double)
    /// The current guess for utterance `utterance`; it may still change.
    case partial(utterance: Int, text: String)
    /// The final result of an utterance.
    case final(RecognitionResult)
    /// A warning from the server's graph.
    case warning(String)
    /// Assistant mode: the wake word `phrase` was heard, ending at `t`.
    case wake(phrase: String, t: Double)
    /// Assistant mode: the session's state changed at `t` (`waiting-for-wake-word`,
    /// `listening`), and why it went back to waiting (`understood`, `not-understood`,
    /// `no-speech`, `cancelled`).
    case assistant(state: String, reason: String?, t: Double)
    /// The session ended: `end-of-input`, `end-of-speech`, `no-speech`, `stopped`, `cancelled`,
    /// `error`; with a suggestion for the user when there is one.
    case end(reason: String, suggestion: String?)
}

extension RemoteEvent {
    /// The event in a server message, or nil for one the client does not report.
    static func parse(_ m: [String: Any]) -> RemoteEvent? {
        func d(_ k: String, _ o: [String: Any] = [:]) -> Double { ((o.isEmpty ? m : o)[k] as? NSNumber)?.doubleValue ?? 0 }
        // A whole number; 0 past what a Double holds exactly (Int(1e300) would stop the process).
        func i(_ k: String, _ o: [String: Any] = [:]) -> Int { let x = d(k, o); return abs(x) < 0x1p53 ? Int(x) : 0 }
        switch m["type"] as? String {
        case "speech-start": return .speechStart(t: d("t"))
        case "speech-end": return .speechEnd(t: d("t"))
        case "partial": return .partial(utterance: i("utterance"), text: m["text"] as? String ?? "")
        case "final":
            let words = (m["words"] as? [[String: Any]] ?? []).map {
                RecognitionResult.Word(word: $0["word"] as? String ?? "", start: d("start", $0), end: d("end", $0), confidence: d("confidence", $0))
            }
            let alternatives = (m["alternatives"] as? [[String: Any]] ?? []).map {
                RecognitionResult.Alternative(text: $0["text"] as? String ?? "", score: i("score", $0))
            }
            return .final(RecognitionResult(utterance: i("utterance"), text: m["text"] as? String ?? "", start: d("start"), end: d("end"),
                                            confidence: d("confidence"), alternatives: alternatives, words: words))
        case "warning": return .warning(m["message"] as? String ?? "")
        case "wake": return .wake(phrase: m["phrase"] as? String ?? "", t: d("t"))
        case "assistant": return .assistant(state: m["state"] as? String ?? "", reason: m["reason"] as? String, t: d("t"))
        case "end": return .end(reason: m["reason"] as? String ?? "error", suggestion: m["suggestion"] as? String)
        default: return nil
        }
    }
}

import Foundation
