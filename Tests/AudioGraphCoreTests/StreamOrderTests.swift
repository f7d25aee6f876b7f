import Testing

@testable import AudioGraphCore

/// The merge of render-thread events with a lagging node's stamped events.
@Suite struct StreamOrderTests {
    /// A lagging node's event, recognisable in the merged sequence by its text.
    func event(_ text: String) -> EngineEvent { .partial(node: "asr", utterance: 1, text: text) }

    /// Takes what the merge lets out now, as names.
    func drain(_ order: inout StreamOrder<String>, flush: Bool = false) -> [String] {
        var out: [String] = []
        while let item = order.next(flush: flush) {
            switch item {
            case .render(let s): out.append(s)
            case .lagging(.partial(_, _, let text), _): out.append(text)
            case .lagging(let e, _): Issue.record("unexpected \(e)")
            }
        }
        return out
    }

    @Test func renderEventsWaitUntilTheLaggingNodeHasCaughtUp() {
        var order = StreamOrder<String>()
        order.add(StreamEvents([], through: 0.2), from: 4)
        order.add("speech-start@0.5", at: 0.5)
        order.add("speech-end@1.5", at: 1.5)
        #expect(drain(&order).isEmpty, "the node has not decoded up to 0.5 s yet")
        #expect(order.isHolding)
        order.add(StreamEvents([StreamEvent(at: 0.7, event("partial@0.7"))], through: 0.8), from: 4)
        #expect(drain(&order) == ["speech-start@0.5", "partial@0.7"], "held: speech-end@1.5")
        order.add(StreamEvents([StreamEvent(at: 1.2, event("partial@1.2"))], through: 1.6), from: 4)
        #expect(drain(&order) == ["partial@1.2", "speech-end@1.5"])
        #expect(!order.isHolding)
    }

    @Test func atTheSameTimeTheRenderEventComesFirst() {
        var order = StreamOrder<String>()
        order.add("utterance-end@2", at: 2.0)
        // Computed another way, the same instant can differ in the last bits.
        order.add(StreamEvents([StreamEvent(at: 2.0 - 1e-12, event("final@2"))], through: 2.1), from: 0)
        #expect(drain(&order) == ["utterance-end@2", "final@2"])
    }

    @Test func aBlocksEventsComeInTimeOrderOnceTheBlockIsRendered() {
        var order = StreamOrder<String>()
        order.renderedThrough = 875.18  // the block 875.18-875.26 is being rendered
        // The vad renders before end-of-speech, which closes the utterance a little earlier.
        order.add("speech-start@875.25", at: 875.25)
        order.add("utterance-end@875.215", at: 875.215)
        order.add(StreamEvents([StreamEvent(at: 875.215, event("final@875.215"))], through: 875.26), from: 0)
        #expect(drain(&order).isEmpty, "more of the block may still come")
        order.renderedThrough = 875.26
        #expect(drain(&order) == ["utterance-end@875.215", "final@875.215", "speech-start@875.25"])
    }

    @Test func lateNodesAreAllWaitedForAndInterleaved() {
        var order = StreamOrder<String>()
        order.add("level@1", at: 1)
        order.add(StreamEvents([StreamEvent(at: 0.9, event("a@0.9"))], through: 3), from: 1)
        order.add(StreamEvents([StreamEvent(at: 0.5, event("b@0.5"))], through: 0.95), from: 2)
        #expect(drain(&order) == ["b@0.5", "a@0.9"], "level@1 waits for node 2 (through 0.95)")
        order.add(StreamEvents([], through: 1), from: 2)
        #expect(drain(&order) == ["level@1"])
    }

    @Test func untimedItemsWaitOnlyForTheItemsBeforeThem() {
        var order = StreamOrder<String>()
        order.add(StreamEvents([], through: 0), from: 0)
        order.add("listening", at: nil)
        order.add("level@1", at: 1)
        order.add("paused", at: nil)
        #expect(drain(&order) == ["listening"], "the marker after level@1 stays behind it")
        order.add(StreamEvents([], through: 1), from: 0)
        #expect(drain(&order) == ["level@1", "paused"])
    }

    @Test func flushingGivesOutEverythingInStreamOrder() {
        var order = StreamOrder<String>()
        order.add("speech-end@3", at: 3)
        order.add("utterance-end@4", at: 4)
        order.add(StreamEvents([StreamEvent(at: 3.5, event("partial@3.5")), StreamEvent(at: 4, event("final@4"))],
                               through: 2), from: 0)
        #expect(drain(&order).isEmpty)
        #expect(drain(&order, flush: true) == ["speech-end@3", "partial@3.5", "utterance-end@4", "final@4"])
    }

    @Test func aNodeThatNeverCatchesUpHoldsOnlyUpToTheLimit() {
        var order = StreamOrder<String>(limit: 2)
        order.add(StreamEvents([], through: 0), from: 0)
        for i in 1...5 { order.add("level@\(i)", at: Double(i)) }
        #expect(drain(&order) == ["level@1", "level@2", "level@3"], "held beyond the limit go out oldest first")
        #expect(order.isHolding)
    }
}
