@testable import AudioGraphSpeech
import Testing

/// The grammar's word automaton (grammar-aware end of speech, and the check that a grammar
/// can say something) and the words PocketSphinx's segments are named by.
@Suite struct GrammarAutomatonTests {
    /// "go [home]": start 0 -go-> 1 -home-> 2, and 1 -> 2 empty; final 2.
    let goHome = GrammarAutomaton(arcs: [[("go", 1)], [("home", 2), (nil, 2)], []], start: 0, final: 2)

    @Test func acceptsWholeSentencesOnly() {
        #expect(goHome.accepts("go") && goHome.accepts("go home"))
        #expect(!goHome.accepts("") && !goHome.accepts("home") && !goHome.accepts("go home home"))
        #expect(goHome.acceptsSomeWords)
    }

    /// What PocketSphinx builds of `<VOID>`, `<NULL>` or a rule that only leads into itself:
    /// an empty arc to the end, or no way there at all.
    @Test func aGrammarOfNoWordsIsTold() {
        let empty = GrammarAutomaton(arcs: [[(nil, 1)], []], start: 0, final: 1)
        #expect(!empty.acceptsSomeWords && empty.accepts(""))
        let loop = GrammarAutomaton(arcs: [[("go", 0)], []], start: 0, final: 1)
        #expect(!loop.acceptsSomeWords)
        // A word that is said on the way, not at the last arc, counts.
        let wordFirst = GrammarAutomaton(arcs: [[("go", 1)], [(nil, 2)], []], start: 0, final: 2)
        #expect(wordFirst.acceptsSomeWords)
    }

    /// Segment names: a variant's number goes, fillers and a grammar's empty arcs are no word.
    @Test func segmentNamesToWords() {
        #expect(PocketSphinxDecoder.word("read(2)") == "read")
        #expect(PocketSphinxDecoder.word("go") == "go")
        for raw in ["(NULL)", "<s>", "</s>", "<sil>", "[NOISE]", "+BREATH+", ""] {
            #expect(PocketSphinxDecoder.word(raw) == nil, "\(raw)")
        }
    }
}
