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

    /// The most levels of expansion (groups, optionals, repetitions and rules named inside
    /// rules) from a public rule down to a word. Both this count and PocketSphinx's
    /// expansion recurse once a level: a chain of 3,000 rules, each naming the next (75 kB
    /// of text), overflowed an 8 MiB stack and ended a server. No grammar for speech comes
    /// near it.
    static let deepest = 300

    /// The size of the largest public rule's automaton (PocketSphinx builds one of them).
    /// Throws where the text is not a grammar this reads, is nested deeper than
    /// ``JSGFRules/deepest``, or expands deeper than ``deepest``.
    static func of(_ text: String) throws(JSGFRules.Problem) -> GrammarSize {
        let rules = try JSGFRules.parse(JSGFTokens.read(text))
        var counter = Counter(rules: rules.bodies)
        var largest = GrammarSize(states: 0, arcs: 0)
        for name in rules.publicNames {
            let size = counter.size(ofRule: name).size
            if counter.tooDeep { throw JSGFRules.Problem(line: 0, tooDeep: true, rule: name) }
            if (size.states, size.arcs) > (largest.states, largest.arcs) { largest = size }
        }
        return largest
    }

    /// A size, and the levels of expansion it took to reach its deepest word.
    private struct Measure {
        var size: GrammarSize
        var depth: Int
        static let emptyArc = Measure(size: GrammarSize(states: 0, arcs: 1), depth: 0)
    }

    /// Counts rule by rule, each rule's size worked out once (a rule in the middle of its own
    /// expansion is a loop back, as PocketSphinx makes right recursion). Stops going down,
    /// and sets ``tooDeep``, past ``GrammarSize/deepest`` levels, counting the levels under a
    /// rule already counted where it is named again.
    private struct Counter {
        let rules: [String: JSGFRules.Expansion]
        var done: [String: Measure] = [:]
        var open: Set<String> = []
        /// Levels of expansion on the way to the one being counted.
        var depth = 0
        var tooDeep = false

        init(rules: [String: JSGFRules.Expansion]) { self.rules = rules }

        mutating func size(ofRule name: String) -> Measure {
            if let known = done[name] {
                if depth + known.depth > GrammarSize.deepest { tooDeep = true }
                return known
            }
            if open.contains(name) { return .emptyArc }
            // <NULL>, <VOID> and undefined rules: PocketSphinx makes an empty arc (and
            // reports an undefined one, which the recognizer then refuses).
            guard let body = rules[name], !tooDeep else { return .emptyArc }
            open.insert(name)
            let s = size(of: body)
            open.remove(name)
            done[name] = s
            return s
        }

        mutating func size(of e: JSGFRules.Expansion) -> Measure {
            depth += 1
            defer { depth -= 1 }
            if depth > GrammarSize.deepest { tooDeep = true }
            if tooDeep { return .emptyArc }
            func under(_ parts: [Measure], states: Int, arcs: Int) -> Measure {
                Measure(size: GrammarSize(states: states, arcs: arcs), depth: 1 + (parts.map(\.depth).max() ?? 0))
            }
            switch e {
            case .word:
                return Measure(size: GrammarSize(states: 0, arcs: 1), depth: 1)
            case .rule(let name):
                let s = size(ofRule: name)
                return Measure(size: s.size, depth: 1 + s.depth)
            case .sequence(let items):
                let parts = items.map { size(of: $0) }
                return under(parts, states: Self.sum(parts.map(\.size.states) + [max(0, parts.count - 1)]),
                             arcs: Self.sum(parts.map(\.size.arcs)))
            case .alternatives(let branches):
                let parts = branches.map { size(of: $0) }
                return under(parts, states: Self.sum(parts.map(\.size.states)), arcs: Self.sum(parts.map(\.size.arcs)))
            case .optional(let x):
                let s = size(of: x)
                return under([s], states: s.size.states, arcs: Self.sum([s.size.arcs, 1]))
            case .repeated(let x):
                let s = size(of: x)
                return under([s], states: Self.sum([s.size.states, 1]), arcs: Self.sum([s.size.arcs, 2]))
            case .once(let x):
                let s = size(of: x)
                return under([s], states: Self.sum([s.size.states, s.size.states, 1]), arcs: Self.sum([s.size.arcs, s.size.arcs, 1]))
            }
        }

        /// A sum that stops at a bound far beyond any limit instead of overflowing.
        static func sum(_ xs: [Int]) -> Int {
            xs.reduce(0) { min($0 + $1, 1 << 50) }
        }
    }
}
