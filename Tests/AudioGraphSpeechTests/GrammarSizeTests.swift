import Foundation
@testable import AudioGraphSpeech
import Testing

/// The size of PocketSphinx's automaton, counted from a grammar's text: each shape's count is
/// what PocketSphinx's own building gives (`sphinx_jsgf2fsg`: states less its start and final
/// state, and arcs), and what it cannot build in reasonable time is counted large.
@Suite struct GrammarSizeTests {
    static func size(_ rules: String) throws -> GrammarSize {
        try GrammarSize.of("#JSGF V1.0;\ngrammar g;\n" + rules + "\n")
    }

    @Test func shapesCountAsPocketSphinxBuildsThem() throws {
        let measured: [(String, Int, Int)] = [
            ("public <a> = go;", 0, 1), ("public <a> = go stop;", 1, 2), ("public <a> = go | stop;", 0, 2),
            ("public <a> = go+;", 1, 3), ("public <a> = go++;", 3, 7), ("public <a> = go*;", 1, 3),
            ("public <a> = go**;", 2, 5), ("public <a> = go***;", 3, 7), ("public <a> = [go];", 0, 2),
            ("public <a> = (go stop)+;", 3, 5), ("public <a> = ((go stop)+)+;", 7, 11),
            ("public <a> = <b> <b>; <b> = go stop;", 3, 4),
            ("public <a> = <b> <b>; <b> = <c> <c>; <c> = go stop;", 7, 8),
            ("public <a> = <b>+; <b> = <c>+; <c> = go stop;", 7, 11),
            ("public <a> = go [<a>];", 1, 3),
        ]
        for (rules, states, arcs) in measured {
            #expect(try Self.size(rules) == GrammarSize(states: states, arcs: arcs), "\(rules)")
        }
    }

    /// A short text for an automaton nobody can build: nested repetitions, and rules that
    /// each say the next one twice.
    @Test func multiplyingShapesCountLarge() throws {
        let plus = try (Self.size("public <a> = go" + String(repeating: "+", count: 22) + ";"))
        #expect(plus.states > 4_000_000)
        let twice = (1...30).map { "<r\($0)> = <r\($0 + 1)> <r\($0 + 1)>;" }.joined(separator: "\n")
        let doubled = try (Self.size("public <a> = <r1>;\n" + twice + "\n<r31> = go;"))
        #expect(doubled.arcs > 1_000_000_000)
        // Far past any count, the sums stop instead of overflowing.
        let huge = try (Self.size("public <a> = go" + String(repeating: "+", count: 90) + ";"))
        #expect(huge.states == 1 << 50)
    }

    @Test func nestingPastTheDeepestIsRefused() throws {
        let deep = "public <a> = " + String(repeating: "(", count: 101) + "go" + String(repeating: ")", count: 101) + ";"
        #expect(throws: JSGFRules.Problem(line: 3, tooDeep: true)) { try Self.size(deep) }
        let fine = "public <a> = " + String(repeating: "(", count: 50) + "go" + String(repeating: ")", count: 50) + ";"
        #expect(try Self.size(fine) == GrammarSize(states: 0, arcs: 1))
    }

    /// Rules naming rules count as levels too: a chain of 3,000 rules, each naming the next,
    /// overflowed an 8 MiB stack counting them (a server died on one `start`). The levels
    /// under a rule already counted are added where it is named again, so counting the
    /// chain's end first does not hide its depth.
    @Test func chainsOfRulesPastTheDeepestAreRefused() throws {
        func chain(_ n: Int, first: String = "<r1>") -> String {
            "public <r0> = \(first);\n" + (1..<n).map { "<r\($0)> = <r\($0 + 1)> go;" }.joined(separator: "\n") + "\n<r\(n)> = stop;"
        }
        #expect(try Self.size(chain(100)).arcs == 100)
        for rules in [chain(3000), chain(200), "public <end> = <r100>;\n" + chain(200)] {
            #expect(throws: JSGFRules.Problem(line: 0, tooDeep: true, rule: "r0")) { try Self.size(rules) }
        }
        let refusal = #expect(throws: GrammarCheck.Refusal.self) {
            try GrammarCheck.examine(text: "#JSGF V1.0;\ngrammar g;\n" + chain(3000) + "\n", path: nil)
        }
        #expect(refusal?.message == "rule <r0> expands more than 300 levels deep through the rules it names and their groups")
    }

    /// What the scanner drops or reads whole: comments, tags, weights, quoted words, a
    /// header's encoding and locale, imports; the largest public rule counts.
    @Test func readsTheWholeLanguage() throws {
        let text = """
            #JSGF V1.0 UTF-8 en;
            /* a comment
               over lines */
            grammar g; // another
            import <other.rule>;
            public <a> = /2/ go {tag} [home] | /0.5/ "stop now";
            public <b> = (one | two)+ three;
            <c> = unused;
            """
        #expect(try GrammarSize.of(text) == GrammarSize(states: 2, arcs: 6))
    }

    /// Not JSGF this reads, and where: the recognizer leaves a syntax error to PocketSphinx's
    /// parser, and refuses what that parser passes over.
    @Test func notAGrammarSaysWhere() throws {
        for (text, line) in [("", 1), ("hello", 1), ("#JSGF V1.0;\ngrammar g;\npublic <a> = (go;\n", 3),
                             ("#JSGF V1.0;\npublic <a> = go;\n", 2), ("#JSGF V1.0;\ngrammar g;\n= go;\npublic <a> = stop;\n", 3)] {
            #expect(throws: JSGFRules.Problem(line: line, tooDeep: false), "\(text)") { try GrammarSize.of(text) }
        }
        // PocketSphinx passes over "= go;" and a stray word outside a rule; this reads the word only.
        let refusal = #expect(throws: GrammarCheck.Refusal.self) {
            try GrammarCheck.examine(text: "#JSGF V1.0;\ngrammar g;\n= go;\npublic <a> = stop;\n", path: nil)
        }
        #expect(refusal?.message.hasPrefix("line 3: not JSGF") == true)
        #expect(try GrammarSize.of("#JSGF V1.0;\ngrammar g;\n7 public <a> = go;\n") == GrammarSize(states: 0, arcs: 1))
        // In a rule's body the keywords are words, as there.
        #expect(try GrammarSize.of("#JSGF V1.0;\ngrammar g;\npublic <a> = public grammar import;\n") == GrammarSize(states: 2, arcs: 3))
        #expect(try GrammarCheck.examine(text: "#JSGF V1.0;\ngrammar g;\npublic <a> = (go;\n", path: nil) == nil)
    }

    /// A client's megabyte of unclosed rule names, tags or quotes is read in one pass (each
    /// looked for its closing character once would be 10^11 steps: the test would not end).
    @Test func unclosedOpeningsAreReadInOnePass() throws {
        for opening in ["<", "{", "\"", "/"] {
            let text = "#JSGF V1.0;\ngrammar g;\npublic <a> = go " + String(repeating: opening + "x ", count: 150_000) + ";\n"
            // What never closes is passed over; the words around it count.
            #expect(try GrammarSize.of(text).arcs >= 75_000, "\(opening)")
        }
    }

    /// The bundled command grammar is small.
    @Test func theBundledGrammarIsSmall() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Graphs/command.gram")
        let size = try GrammarSize.of(String(contentsOf: url, encoding: .utf8))
        #expect(size.states >= 18 && size.arcs >= 133 && size.arcs < 1000, "\(size)")
    }
}
