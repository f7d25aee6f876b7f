import AudioGraphCore

/// What an assistant graph reports beyond audio and recognition (CONTRACT.md's `wake`,
/// `assistant`, `earcon` and `barge-in` events), as ``EngineEvent/custom(node:event:)``
/// carries it; read with ``EngineEvent/conversation``:
///
///     if let (node, .wake(phrase, t)) = event.conversation { ... }
public enum ConversationEvent: CustomEvent, Equatable {
    /// A recognizer listening for its wake word heard it, ending at stream time `t`.
    case wake(phrase: String, t: Double)
    /// Where an assistant graph is in its loop (``AssistantState``), from stream time `t`;
    /// `reason` says why it went back to waiting for the wake word.
    case assistant(state: AssistantState, reason: AssistantState.Reason?, t: Double)
    /// A speech-synth began playing an earcon (a short sound bound to an assistant state).
    case earcon(name: String, t: Double)
    /// A speech-synth with `barge-in` stopped its answer because the user's speech began at
    /// stream time `t`; a recognizer connected to its `barge-in` takes that speech as a command.
    case bargeIn(t: Double)
    /// An `echo-canceller` measured that what the graph plays comes back `delay` seconds later
    /// (from stream time `t` on) and aligned its reference with it.
    case echoDelay(delay: Double, t: Double)
    /// An `echo-canceller` holds the echo of what plays from stream time `t`: its output stayed
    /// `below` dB (the lower of the whole band's and the treble's, over the last half second)
    /// under what played. It marks nothing more on its `playing` output: the listeners hear
    /// over the answer once what it marked last has passed (the echo's tail, about 0.3 s, and
    /// the playback latency).
    case echoHeld(below: Double, t: Double)
}

extension EngineEvent {
    /// The conversation's event this is, and the node that reported it; nil for any other.
    public var conversation: (node: String, event: ConversationEvent)? {
        guard case .custom(let node, let e) = self, let c = e.base as? ConversationEvent else { return nil }
        return (node, c)
    }

    /// `node`'s ``ConversationEvent`` `event`.
    public static func conversation(_ node: String, _ event: ConversationEvent) -> EngineEvent {
        .custom(node: node, event: AnyCustomEvent(event))
    }

    /// ``ConversationEvent/wake(phrase:t:)`` from `node`.
    public static func wake(node: String, phrase: String, t: Double) -> EngineEvent {
        .conversation(node, .wake(phrase: phrase, t: t))
    }

    /// ``ConversationEvent/assistant(state:reason:t:)`` from `node`.
    public static func assistant(node: String, state: AssistantState, reason: AssistantState.Reason?, t: Double) -> EngineEvent {
        .conversation(node, .assistant(state: state, reason: reason, t: t))
    }

    /// ``ConversationEvent/earcon(name:t:)`` from `node`.
    public static func earcon(node: String, name: String, t: Double) -> EngineEvent {
        .conversation(node, .earcon(name: name, t: t))
    }

    /// ``ConversationEvent/bargeIn(t:)`` from `node`.
    public static func bargeIn(node: String, t: Double) -> EngineEvent {
        .conversation(node, .bargeIn(t: t))
    }
}

/// Where an assistant graph is in its loop: waiting for the wake word, listening for one
/// command, speaking the answer (SpeechKit's recognizer and vocalizer states, as one).
public enum AssistantState: String, Sendable {
    /// Listening for the wake word only.
    case waitingForWakeWord = "waiting-for-wake-word"
    /// Listening for one command, after the wake word.
    case listening
    /// Speaking an answer.
    case speaking

    /// Why the listener went back to waiting for the wake word.
    public enum Reason: String, Sendable {
        /// A command was recognised (its final result was reported).
        case understood
        /// Speech was heard but none of it was a command the search accepts.
        case notUnderstood = "not-understood"
        /// Nobody spoke within the command timeout after the wake word.
        case noSpeech = "no-speech"
        /// The command was cancelled from code.
        case cancelled
        /// The speech server's session ended during the command (a restart, a drain, its
        /// limit): a remote recognizer's new session waits for the wake word again.
        case lost
    }
}

