/// The life of a recognition session as a value-type state machine: each method is a
/// transition that returns what the session must do, or throws for misuse (the
/// async-http-client Transaction+StateMachine pattern). No I/O here, so every transition
/// is unit-tested.
///
///     idle --start--> listening --stop--> stopping --ended--> ended
///                        |  \----ended(end-of-speech / no-speech / end-of-input / error)--> ended
///                        \--cancel--> cancelling --ended--> ended
package struct SessionStateMachine: Sendable, Equatable {
    package enum State: Sendable, Equatable {
        case idle, listening, stopping, cancelling
        case ended(EndReasonValue)
    }

    /// `EndReason` as an equatable value for state comparisons.
    package typealias EndReasonValue = String

    /// What the session does after a transition.
    package enum Action: Sendable, Equatable {
        case startEngine
        case stopEngine
        case cancelEngine
        case none
    }

    package private(set) var state: State = .idle

    package init() {}

    package mutating func start() throws(SessionError) -> Action {
        guard state == .idle else { throw SessionError(.alreadyStarted, "start: the session was already started") }
        state = .listening
        return .startEngine
    }

    package mutating func stop() throws(SessionError) -> Action {
        switch state {
        case .idle: throw SessionError(.notStarted, "stop: the session has not started")
        case .listening:
            state = .stopping
            return .stopEngine
        case .stopping, .cancelling: return .none
        case .ended: throw SessionError(.alreadyEnded, "stop: the session has already ended")
        }
    }

    package mutating func cancel() throws(SessionError) -> Action {
        switch state {
        case .idle: throw SessionError(.notStarted, "cancel: the session has not started")
        case .listening, .stopping:
            state = .cancelling
            return .cancelEngine
        case .cancelling: return .none
        case .ended: return .none  // as SFSpeechRecognitionTask's cancel: nothing left to discard
        }
    }

    /// The engine reported its end.
    package mutating func ended(_ reason: String) {
        state = .ended(reason)
    }
}

/// Misuse of a session (start twice, stop before start, cancel after the end).
public struct SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was misused.
    public enum Code: String, Sendable {
        /// `start()` on a session that has started.
        case alreadyStarted
        /// `stop()` or `cancel()` before `start()`.
        case notStarted
        /// `stop()` after the session ended.
        case alreadyEnded
    }
    /// What was misused.
    public var code: Code
    /// One line saying what happened, naming the call.
    public var message: String
    /// An error of kind `code`, described by `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { message }
}
