/// The size of the word automaton PocketSphinx builds from a JSGF grammar, reckoned from the
/// grammar's text before PocketSphinx expands it.
///
/// PocketSphinx copies a rule at every reference to it and builds `x+` from two copies of
/// `x`, so a short text can stand for an automaton too large to build: `go` followed by 20
/// `+` is a million states (minutes of work and gigabytes), and so are ten rules that each
/// say the next one twice. Its building also grows with the square of the automaton (20,000
/// states or word arcs take about a second). ``GrammarCheck`` refuses a grammar beyond
/// ``GrammarCheck/mostStatesOrArcs`` before PocketSphinx sees it.
///
/// The count follows PocketSphinx's expansion: a word is an arc; a sequence adds a state
/// between its items; alternatives share their ends; `[x]` adds an empty arc; `x*` a state
/// and two arcs; `x+` is `x` twice, a state and an arc; a reference to a rule being expanded
/// (right recursion) is one empty arc back. Measured against PocketSphinx's own automata
/// (`sphinx_jsgf2fsg`) for each of those shapes, and fuzzed against it (`Tools/fuzz jsgf`:
/// PocketSphinx never builds more than this counts).
struct GrammarSize: Equatable, Sendable {
    /// States strictly inside the automaton (its start and final state not counted).
    var states: Int
    /// Arcs, words and empty ones.
    var arcs: Int

    /// The size of the largest public rule's automaton (PocketSphinx builds one of them).
    /// Throws where the text is not a grammar this reads, or is nested deeper than
    /// ``JSGFRules/deepest``.
    static func of(_ text: String) throws(JSGFRules.Problem) -> GrammarSize {
        let rules = try JSGFRules.parse(JSGFTokens.read(text))
        var counter = Counter(rules: rules.bodies)
        return rules.publicNames.map { counter.size(ofRule: $0) }
            .max { ($0.states, $0.arcs) < ($1.states, $1.arcs) } ?? GrammarSize(states: 0, arcs: 0)
    }

    /// Counts rule by rule, each rule's size worked out once (a rule in the middle of its own
    /// expansion is a loop back, as PocketSphinx makes right recursion).
    private struct Counter {
        let rules: [String: JSGFRules.Expansion]
        var done: [String: GrammarSize] = [:]
        var open: Set<String> = []

        init(rules: [String: JSGFRules.Expansion]) { self.rules = rules }

        mutating func size(ofRule name: String) -> GrammarSize {
            if let known = done[name] { return known }
            if open.contains(name) { return GrammarSize(states: 0, arcs: 1) }
            // <NULL>, <VOID> and undefined rules: PocketSphinx makes an empty arc (and
            // reports an undefined one, which the recognizer then refuses).
            guard let body = rules[name] else { return GrammarSize(states: 0, arcs: 1) }
            open.insert(name)
            let s = size(of: body)
            open.remove(name)
            done[name] = s
            return s
        }

        mutating func size(of e: JSGFRules.Expansion) -> GrammarSize {
            switch e {
            case .word:
                return GrammarSize(states: 0, arcs: 1)
            case .rule(let name):
                return size(ofRule: name)
            case .sequence(let items):
                let parts = items.map { size(of: $0) }
                return GrammarSize(states: Self.sum(parts.map(\.states) + [max(0, parts.count - 1)]),
                                   arcs: Self.sum(parts.map(\.arcs)))
            case .alternatives(let branches):
                let parts = branches.map { size(of: $0) }
                return GrammarSize(states: Self.sum(parts.map(\.states)), arcs: Self.sum(parts.map(\.arcs)))
            case .optional(let x):
                let s = size(of: x)
                return GrammarSize(states: s.states, arcs: Self.sum([s.arcs, 1]))
            case .repeated(let x):
                let s = size(of: x)
                return GrammarSize(states: Self.sum([s.states, 1]), arcs: Self.sum([s.arcs, 2]))
            case .once(let x):
                let s = size(of: x)
                return GrammarSize(states: Self.sum([s.states, s.states, 1]), arcs: Self.sum([s.arcs, s.arcs, 1]))
            }
        }

        /// A sum that stops at a bound far beyond any limit instead of overflowing.
        static func sum(_ xs: [Int]) -> Int {
            xs.reduce(0) { min($0 + $1, 1 << 50) }
        }
    }
}
