@testable import AudioGraphClient
import Foundation
import Testing

/// A server's events as the client reads them: fields of the wrong type or out of range give
/// defaults, never a stop. (Before, an utterance number of 1e300 stopped the process: Swift's
/// conversion of a Double past Int's range traps.)
@Suite struct RemoteEventTests {
    static func parsed(_ json: String) -> RemoteEvent? {
        guard case .success(let m) = PeerJSON.object(json.utf8) else { return nil }
        return RemoteEvent.parse(m)
    }

    @Test func numbersOutOfRangeAndWrongTypesAreDefaults() {
        guard case .partial(let utterance, let text) = Self.parsed(#"{"type": "partial", "utterance": 1e300, "text": 5}"#) else {
            Issue.record("a partial"); return
        }
        #expect(utterance == 0 && text == "")
        guard case .final(let result) = Self.parsed(#"{"type": "final", "utterance": -1e19, "text": "go", "words": [{"word": "go", "start": "x"}],"#
                                                    + #" "alternatives": [{"text": "go", "score": 1e308}, 7]}"#) else {
            Issue.record("a final"); return
        }
        #expect(result.utterance == 0 && result.text == "go" && result.words.count == 1 && result.words[0].start == 0)
        #expect(result.alternatives.isEmpty, "a list with a number in it is not a list of alternatives")
        guard case .partial(let kept, _) = Self.parsed(#"{"type": "partial", "utterance": 3}"#) else { Issue.record("a partial"); return }
        #expect(kept == 3)
        #expect(Self.parsed(#"{"type": "no-such-event"}"#) == nil)
    }
}
