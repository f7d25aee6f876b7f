import AudioGraphCore
import Testing

@testable import AudioGraph

/// The conversation's events travel as Core's `custom` events: they compare as the others,
/// read back with `conversation`, and keep their CONTRACT lines; an embedder's own kind
/// travels the same way.
@Suite struct ConversationEventTests {
    struct Knock: CustomEvent, Equatable { var times: Int }

    @Test func conversationEventsCompareAndReadBack() throws {
        let wake = EngineEvent.wake(node: "asr", phrase: "hello computer", t: 1)
        #expect(wake == .wake(node: "asr", phrase: "hello computer", t: 1))
        #expect(wake != .wake(node: "asr", phrase: "hello computer", t: 2))
        #expect(wake != .wake(node: "kws", phrase: "hello computer", t: 1))
        #expect(wake != .bargeIn(node: "asr", t: 1))
        let c = try #require(wake.conversation)
        #expect(c.node == "asr" && c.event == .wake(phrase: "hello computer", t: 1))
        #expect(EngineEvent.state(.listening).conversation == nil)
        #expect(EngineEvent.assistant(node: "asr", state: .listening, reason: nil, t: 1.5).jsonLine
                == #"{"type":"assistant","node":"asr","state":"listening","t":1.5}"#)
    }

    @Test func anEmbeddersOwnKindTravelsAsACustomEvent() {
        let knock = EngineEvent.custom(node: "door", event: AnyCustomEvent(Knock(times: 2)))
        #expect(knock == .custom(node: "door", event: AnyCustomEvent(Knock(times: 2))))
        #expect(knock != .custom(node: "door", event: AnyCustomEvent(Knock(times: 3))))
        #expect(knock != .custom(node: "door", event: AnyCustomEvent(ConversationEvent.bargeIn(t: 2))))
        #expect(knock.conversation == nil)
        #expect(knock.jsonLine.contains(#""type":"custom","node":"door","kind":"Knock""#), "\(knock.jsonLine)")
    }
}
