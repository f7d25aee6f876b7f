import Testing

@testable import AudioGraphSpeech

/// How text is cut for flite, a piece at a time (`SpokenPieces`).
@Suite struct SpokenPiecesTests {
    @Test func sentencesArePieces() {
        #expect(SpokenPieces.of("Turning on the light. It is 7.30 now! Is it? yes") ==
                ["Turning on the light.", "It is 7.30 now!", "Is it?", "yes"])
    }

    @Test func piecesWithNothingToSayAreLeftOut() {
        #expect(SpokenPieces.of("... !? - Hello. . . ! ok") == ["- Hello.", "ok"])
        #expect(SpokenPieces.of("").isEmpty)
        #expect(SpokenPieces.of("   ").isEmpty)
    }

    @Test func aLongSentenceIsCutAfterItsLastSpaceBeforeTheLimit() {
        let words = Array(repeating: "word", count: 30).joined(separator: " ")  // 149 characters
        let pieces = SpokenPieces.of(words + ".", longest: 40)
        #expect(pieces.allSatisfy { $0.utf8.count <= 40 }, "\(pieces)")
        #expect(pieces.joined(separator: " ") == words + ".", "nothing lost or split inside a word")
        #expect(pieces.first == Array(repeating: "word", count: 8).joined(separator: " "), "39 characters, the most that fit")
    }

    @Test func aRunWithoutSpacesIsCutAtTheLimit() {
        let run = String(repeating: "a", count: 100)
        #expect(SpokenPieces.of(run, longest: 40).map(\.utf8.count) == [40, 40, 20])
    }
}
