import CPocketSphinxSupport

/// Whether PocketSphinx can be given a JSGF grammar: every refusal of one, in the order it is
/// made, before PocketSphinx loads it (`RecognizerSettings` asks, so `validate`, `run` and a
/// server's session all refuse it at the `grammar` parameter).
///
/// 1. Its size, reckoned from the text (``GrammarSize``): PocketSphinx copies a rule at every
///    reference and `x` twice for `x+`, so a short text can stand for an automaton it cannot
///    build. Text that is not JSGF as ``JSGFReader`` reads it, but that PocketSphinx's parser
///    passes, is refused too: its size is not known.
/// 2. PocketSphinx's automaton of it before it joins the empty arcs, built under the
///    fatal-error guard: a fatal error (a weight over 1 on `<NULL>`, which would end the
///    process), an undefined or left-recursive rule (PocketSphinx logs it and builds the
///    rest), no sentence of words, too many copies of a word at one point, too many empty
///    arcs once joined.
///
/// A grammar PocketSphinx does not parse passes: its load then reports the syntax error.
package enum GrammarCheck {
    /// The most states or word arcs the text may count (PocketSphinx takes about a second to
    /// build 20,000, and the time grows with the square).
    static let mostStatesOrArcs = 50_000
    /// The most copies of one word at one point (``GrammarAutomaton/mostCopies``): 16 decode a
    /// 2 s command in 0.2 s, 64 in 6 s, 256 not in 100 s.
    static let mostWordCopies = 16
    /// The most empty arcs the automaton's may join into
    /// (``GrammarAutomaton/joinedEmptyArcs(limit:)``): PocketSphinx's search slows steeply
    /// with them. A chain of 140 optional words (the dictionary's first) is under it (9,870)
    /// and decodes 2 s of speech in 1.7 s, 100 in 0.7 s; 300 other words (45,000) took 39 s.
    static let mostJoinedEmptyArcs = 10_000

    /// Whether `text` imports other grammars, as PocketSphinx's scanner reads it: `import`
    /// outside a rule's body, wherever on its line (after a comment, or the header on the same
    /// line). PocketSphinx then reads `<a.b.*>` from the file `a/b.gram` beside the process or
    /// the grammar: a server refuses this in a client's grammar.
    package static func imports(_ text: String) -> Bool {
        JSGFTokens.read(text).tokens.contains { $0.token == .import }
    }

    /// Why the grammar was refused, and what to do instead where there is something to say.
    struct Refusal: Error {
        let message: String
        var suggestion: String?
    }

    /// Checks the grammar `text` (read from `path`, whose folder its imports are found in;
    /// nil: the text alone). Returns PocketSphinx's automaton of it before its empty arcs are
    /// joined, or nil where PocketSphinx does not parse it.
    @discardableResult
    static func examine(text: String, path: String?) throws(Refusal) -> GrammarAutomaton? {
        ag_ps_capture_log()
        let size: GrammarSize
        do {
            size = try GrammarSize.of(text)
        } catch {
            if let rule = error.rule {
                throw Refusal(message: "rule <\(rule)> expands more than \(GrammarSize.deepest) levels deep through the rules it names and their groups",
                              suggestion: "each rule named inside another is a level, as is each group: name fewer rules within rules")
            }
            if error.tooDeep { throw Refusal(message: "line \(error.line): nested more than \(JSGFRules.deepest) deep") }
            var fatal: Int32 = 0
            guard ag_jsgf_parses_guarded(path, text, &fatal) != 0 else {
                if fatal != 0 { throw Refusal(message: PocketSphinxDecoder.lastError()) }
                return nil
            }
            throw Refusal(message: "line \(error.line): not JSGF as audiograph reads it (a word or symbol outside a rule's body, or a rule without a name?)")
        }
        let largest = max(size.states, size.arcs)
        if largest > mostStatesOrArcs {
            throw Refusal(message: "the grammar expands to \(largest >= 1 << 50 ? "more than 10^15" : "about \(largest)") states or word arcs, "
                          + "more than the \(mostStatesOrArcs) allowed: every x+ doubles x, and every reference copies its rule")
        }
        ag_ps_capture_log()
        var fatal = false
        guard let raw = GrammarAutomaton.raw(path: path, text: text, fatal: &fatal) else {
            if fatal { throw Refusal(message: PocketSphinxDecoder.lastError()) }
            return nil
        }
        // PocketSphinx logs an undefined rule or left recursion and builds the grammar without
        // it: a search that never ends a sentence there.
        if String(cString: ag_ps_last_error()).contains("\"jsgf.c\"") {
            throw Refusal(message: PocketSphinxDecoder.lastError(),
                          suggestion: "a rule may refer to itself only at its end (<a> = go [<a>]), and every rule it names must be defined")
        }
        if !raw.acceptsSomeWords {
            throw Refusal(message: "the grammar has no sentence of words: its public rule leads only into itself, <NULL> or <VOID>")
        }
        let copies = raw.mostCopies
        if copies.count > mostWordCopies {
            throw Refusal(message: "the grammar makes \(copies.count) copies of \"\(copies.word)\" at one point (more than \(mostWordCopies)), "
                          + "too slow to search: each + nested in another doubles them, as does a word repeated among alternatives")
        }
        if raw.joinedEmptyArcs(limit: mostJoinedEmptyArcs) > mostJoinedEmptyArcs {
            throw Refusal(message: "the grammar's empty arcs join into more than \(mostJoinedEmptyArcs) arcs: "
                          + "each optional word ([a] [b] [c] ...) reaches every one after it")
        }
        return raw
    }
}
