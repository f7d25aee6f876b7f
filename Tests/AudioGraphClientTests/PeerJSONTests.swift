@testable import AudioGraphClient
import Foundation
import Synchronization
import Testing

/// JSON from a peer is parsed only when shallow enough for the small stacks civetweb runs its
/// handlers on.
@Suite struct PeerJSONTests {
    static func nested(_ depth: Int) -> String {
        String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
    }

    @Test func nestingCountsBracketsOutsideStrings() {
        #expect(PeerJSON.nesting(of: Array("{}".utf8)) == 1)
        #expect(PeerJSON.nesting(of: Array(#"{"a": [[1], {"b": 2}]}"#.utf8)) == 3)
        // Brackets inside strings, and escaped quotes before them, are text.
        #expect(PeerJSON.nesting(of: Array(#"{"a": "[[[{{{", "b": "\"[[["}"#.utf8)) == 1)
        #expect(PeerJSON.nesting(of: Array(#"{"a": "\\", "b": [1]}"#.utf8)) == 2)
    }

    @Test func deepMessagesAreRefusedBeforeParsing() {
        guard case .success(let object) = PeerJSON.object(Self.nested(PeerJSON.maxDepth).utf8) else {
            Issue.record("\(PeerJSON.maxDepth) levels are parsed"); return
        }
        #expect(object["a"] != nil)
        for depth in [PeerJSON.maxDepth + 1, 400, 100_000] {
            guard case .failure(let failure) = PeerJSON.object(Self.nested(depth).utf8) else {
                Issue.record("\(depth) levels refused"); continue
            }
            #expect(failure.description == "nested deeper than 64 levels")
        }
        guard case .failure(.notAnObject) = PeerJSON.object("[1]".utf8) else { Issue.record("an array is not an object"); return }
        guard case .failure(.notAnObject) = PeerJSON.object("\"text\"".utf8) else { Issue.record("a string is not an object"); return }
        // Not JSON: the parser's reason is said (before, every one was "not a JSON object").
        for (text, why) in [("{", "not JSON (Unexpected end of file"), ("not json", "not JSON (Invalid value around character 1"),
                            (#"{"rate": 1e400}"#, "not JSON (Number 1e400 is not representable")] {
            guard case .failure(let failure) = PeerJSON.object(text.utf8) else { Issue.record("\(text) taken"); continue }
            #expect(failure.description.hasPrefix(why), "\(failure)")
        }
    }

    @Test func theDeepestAllowedParsesOnASmallStack() async {
        // civetweb's handler threads have small stacks; 400 levels overflowed one. The deepest
        // message taken must parse on far less than the 256 KiB our own threads get.
        let parsed = Mutex<Bool?>(nil)
        let thread = Thread {
            if case .success = PeerJSON.object(Self.nested(PeerJSON.maxDepth).utf8) { parsed.withLock { $0 = true } } else { parsed.withLock { $0 = false } }
        }
        thread.stackSize = 128 << 10
        thread.start()
        while parsed.withLock({ $0 }) == nil { try? await Task.sleep(for: .milliseconds(5)) }
        #expect(parsed.withLock { $0 } == true)
    }
}
