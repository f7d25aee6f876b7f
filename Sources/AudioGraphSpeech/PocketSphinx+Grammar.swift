import CPocketSphinx
import CPocketSphinxSupport
import Foundation

/// A grammar's word automaton, read from PocketSphinx's compiled JSGF search, to tell
/// whether a hypothesis is a whole sentence of the grammar (its final state reached) or
/// only the start of one: grammar-aware end of speech waits longer for the rest.
struct GrammarAutomaton: Sendable {
    /// Arcs out of each state: the word (nil: an empty or filler arc) and the next state.
    let arcs: [[(word: String?, to: Int)]]
    let start: Int
    let final: Int

    /// Whether `text` (words separated by spaces, fillers removed) takes the automaton from
    /// its start to its final state.
    func accepts(_ text: String) -> Bool {
        var states = closure([start])
        for w in text.split(separator: " ") {
            var next: [Int] = []
            for s in states { for a in arcs[s] where a.word.map({ $0 == w }) == true { next.append(a.to) } }
            if next.isEmpty { return false }
            states = closure(next)
        }
        return states.contains(final)
    }

    /// The word with the most arcs out of one state, and how many. PocketSphinx searches each
    /// copy and joins the end of every word into a state to the start of every word out of
    /// it, and copies of one word score alike, so none is pruned: its work grows with the
    /// square of the copies. Nested repetition (`go++++`, twice the copies a `+`) and repeated
    /// alternatives (`(go | go | go)+`) make them; 16 copies decode a 2 s command in 0.2 s,
    /// 64 in 6 s, 256 not in 100 s (``GrammarCheck`` refuses more than 16).
    var mostCopies: (word: String, count: Int) {
        var best = (word: "", count: 0)
        for out in arcs {
            var counts: [String: Int] = [:]
            for a in out { if let w = a.word { counts[w, default: 0] += 1 } }
            if let top = counts.max(by: { $0.value < $1.value }), top.value > best.count { best = (top.key, top.value) }
        }
        return best
    }

    /// The empty arcs PocketSphinx adds when it joins them (an arc from each state to every
    /// state a path of empty arcs reaches), counted up to `limit` (then `limit` + 1). A chain of
    /// n optional words, `[a] [b] [c] ...`, gets about n * n / 2: 20,000 of them would be 200
    /// million arcs.
    func joinedEmptyArcs(limit: Int) -> Int {
        let empty = arcs.map { out in out.compactMap { $0.word == nil ? $0.to : nil } }
        var count = 0
        for s in empty.indices where !empty[s].isEmpty {
            var seen: Set<Int> = [s]
            var todo = [s]
            while let x = todo.popLast() {
                for to in empty[x] where seen.insert(to).inserted {
                    todo.append(to)
                    count += 1
                    if count > limit { return count }
                }
            }
        }
        return count
    }

    /// Whether some sentence of at least one word takes the automaton from its start to its
    /// final state. Not so for a grammar whose rules lead only into themselves, `<NULL>` or
    /// `<VOID>` (PocketSphinx builds those as an empty arc): every result would be empty.
    var acceptsSomeWords: Bool {
        // States reached before any word (`silent`) and after one (`said`).
        var silent = Set([start]), said = Set<Int>()
        var todo = [(start, false)]
        while let (s, afterWord) = todo.popLast() {
            if s == final && afterWord { return true }
            for a in arcs[s] {
                let next = afterWord || a.word != nil
                if next ? said.insert(a.to).inserted : silent.insert(a.to).inserted { todo.append((a.to, next)) }
            }
        }
        return false
    }

    private func closure(_ from: [Int]) -> Set<Int> {
        var seen = Set(from)
        var todo = from
        while let s = todo.popLast() {
            for a in arcs[s] where a.word == nil && seen.insert(a.to).inserted { todo.append(a.to) }
        }
        return seen
    }
}

extension GrammarAutomaton {
    /// The automaton of a PocketSphinx word automaton (`fsg_model_t`).
    init(_ fsg: UnsafeMutablePointer<fsg_model_t>) {
        let model = fsg.pointee
        var arcs = [[(word: String?, to: Int)]](repeating: [], count: Int(model.n_state))
        for state in 0..<model.n_state {
            var it = fsg_model_arcs(fsg, state)
            while let i = it {
                if let link = fsg_arciter_get(i)?.pointee {
                    var word: String?
                    if link.wid >= 0, let raw = model.vocab[Int(link.wid)] {
                        word = PocketSphinxDecoder.word(String(cString: raw))  // nil for fillers; variants lose their "(2)"
                    }
                    arcs[Int(state)].append((word, Int(link.to_state)))
                }
                it = fsg_arciter_next(i)
            }
        }
        self.init(arcs: arcs, start: Int(model.start_state), final: Int(model.final_state))
    }

    /// The automaton PocketSphinx builds from the grammar file at `path` (nil: from `text`)
    /// before it joins its empty arcs (`jsgf_build_fsg_raw`), or nil when it is not a grammar
    /// PocketSphinx reads, or, with `fatal` set, one it met a fatal error in (which would have
    /// ended the process). Only for a grammar ``GrammarSize`` counts small: the building
    /// copies rules as it goes.
    static func raw(path: String?, text: String, fatal: inout Bool) -> GrammarAutomaton? {
        var failed: Int32 = 0
        defer { fatal = failed != 0 }
        guard let fsg = ag_jsgf_build_raw_guarded(path, path == nil ? text : nil, &failed) else { return nil }
        let model = UnsafeMutableRawPointer(fsg).assumingMemoryBound(to: fsg_model_t.self)
        defer { _ = fsg_model_free(model) }
        return GrammarAutomaton(model)
    }
}

extension PocketSphinxDecoder {
    /// The word automaton of the grammar search (nil for other searches).
    func grammarAutomaton() -> GrammarAutomaton? {
        ps_get_fsg(decoder, "_default").map { GrammarAutomaton($0) }
    }

    /// The dictionary's pronunciation of `word` (phones separated by spaces), or nil.
    func pronunciation(of word: String) -> String? {
        guard let p = ps_lookup_word(decoder, word) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
