import AudioGraphClient
import AudioGraphConversation
import AudioGraphCore

/// What a speech server reports, as a remote node's engine events.
extension RemoteRecognizer {
    /// Where a server session's times and utterance numbers sit in the run: a session started
    /// again mid-run (live input) counts from 0 and 1 like any other.
    struct SessionOrigin: Sendable {
        /// Seconds of the run's audio before the session's first sample.
        var seconds = 0.0
        /// Utterances the run's earlier sessions had.
        var utterances = 0
    }

    /// The server's events as this node's: partials and finals (its vad's are the local vad's),
    /// on the run's clock.
    static func convert(_ e: RemoteEvent, from origin: SessionOrigin = SessionOrigin()) -> EngineEvent? {
        let dt = origin.seconds
        switch e {
        case .partial(let u, let text): return .partial(node: "", utterance: u + origin.utterances, text: text)
        case .final(var r):
            r.utterance += origin.utterances
            r.start += dt
            r.end += dt
            for i in r.words.indices {
                r.words[i].start += dt
                r.words[i].end += dt
            }
            return .final(node: "", result: r)
        case .warning(let w): return .warning(node: "", message: "speech server: " + w)
        case .wake(let phrase, let t): return .wake(node: "", phrase: phrase, t: t + dt)
        case .assistant(let state, let reason, let t):
            guard let state = AssistantState(rawValue: state) else { return nil }
            return .assistant(node: "", state: state, reason: reason.flatMap(AssistantState.Reason.init(rawValue:)), t: t + dt)
        default: return nil
        }
    }
}

extension EngineEvent {
    /// The event with its node id set (events made off the render thread know no id).
    func withNode(_ id: String) -> EngineEvent {
        switch self {
        case .partial(_, let u, let t): .partial(node: id, utterance: u, text: t)
        case .final(_, let r): .final(node: id, result: r)
        case .warning(_, let m): .warning(node: id, message: m)
        case .overrun(_, let n): .overrun(node: id, lost: n)
        case .custom(_, let e): .custom(node: id, event: e)
        case .error(let e): .error(e.atNode(id))
        default: self
        }
    }
}
