import Foundation


/// Engine-level events that travel in the node event ring so that they stay in order
/// with the nodes' own events.
enum EngineMarker {
    case state(EngineState)
    case end(EndReason)

    static let stateKind = NodeEvent.Kind(rawValue: 900)
    static let endKind = NodeEvent.Kind(rawValue: 901)
    private static let states: [EngineState] = [.idle, .listening, .paused, .stopping, .ended]
    static let reasons: [EndReason] = [.endOfInput, .endOfSpeech, .noSpeech, .stopped, .cancelled, .error]

    static func event(state s: EngineState) -> NodeEvent {
        NodeEvent(stateKind, t: 0, code: Int32(states.firstIndex(of: s) ?? 0))
    }

    static func event(end r: EndReason) -> NodeEvent {
        NodeEvent(endKind, t: 0, code: Int32(reasons.firstIndex(of: r) ?? 0))
    }

    init?(_ e: NodeEvent) {
        switch e.kind {
        case Self.stateKind: self = .state(Self.states[Int(e.code)])
        case Self.endKind: self = .end(Self.reasons[Int(e.code)])
        default: return nil
        }
    }
}
