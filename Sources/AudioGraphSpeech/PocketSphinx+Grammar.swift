import CPocketSphinx
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

    private func closure(_ from: [Int]) -> Set<Int> {
        var seen = Set(from)
        var todo = from
        while let s = todo.popLast() {
            for a in arcs[s] where a.word == nil && seen.insert(a.to).inserted { todo.append(a.to) }
        }
        return seen
    }
}

extension PocketSphinxDecoder {
    /// The word automaton of the grammar search (nil for other searches).
    func grammarAutomaton() -> GrammarAutomaton? {
        guard let fsg = ps_get_fsg(decoder, "_default") else { return nil }
        let model = fsg.pointee
        var arcs = [[(word: String?, to: Int)]](repeating: [], count: Int(model.n_state))
        for state in 0..<model.n_state {
            var it = fsg_model_arcs(fsg, state)
            while let i = it {
                if let link = fsg_arciter_get(i)?.pointee {
                    var word: String?
                    if link.wid >= 0, let raw = model.vocab[Int(link.wid)] {
                        word = Self.word(String(cString: raw))  // nil for fillers; variants lose their "(2)"
                    }
                    arcs[Int(state)].append((word, Int(link.to_state)))
                }
                it = fsg_arciter_next(i)
            }
        }
        return GrammarAutomaton(arcs: arcs, start: Int(model.start_state), final: Int(model.final_state))
    }

    /// The dictionary's pronunciation of `word` (phones separated by spaces), or nil.
    func pronunciation(of word: String) -> String? {
        guard let p = ps_lookup_word(decoder, word) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
