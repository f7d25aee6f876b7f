import AudioGraphCore
import Foundation
import Synchronization

/// Decoders kept loaded after their session, for the next recognizer with the same model
/// files and settings (``SpeechModel/keepsLoadedModels``): a batch of files then loads the
/// model once per worker instead of once per file.
///
/// A decoder is taken by one recognizer at a time and given back when that recognizer goes
/// away; between the two it is put back in its freshly loaded state
/// (`PocketSphinxDecoder.startOver`). Taking and giving happen when a session opens and
/// when it is released, never on the audio path. Recognizers use ``shared``; a keeper of its
/// own holds nothing the shared one sees (tests).
final class LoadedDecoders: Sendable {
    /// The keeper recognizers take from and give to.
    static let shared = LoadedDecoders()

    /// A loaded decoder and what its load found (reported again by each session that reuses it).
    struct Entry {
        var decoder: PocketSphinxDecoder
        var automaton: GrammarAutomaton?
        var warnings: [String]
    }

    /// Idle decoders, the least recently given back first.
    private struct State {
        var keeping = false
        var limit = 8
        var idle: [(key: String, entry: UncheckedSendable<Entry>)] = []

        /// Takes out the oldest idle decoders past `count`, for the caller to free.
        mutating func trimmed(to count: Int) -> [UncheckedSendable<Entry>] {
            let excess = max(0, idle.count - count)
            defer { idle.removeFirst(excess) }
            return idle.prefix(excess).map(\.entry)
        }
    }
    private let state = Mutex(State())

    /// Whether decoders are kept (``SpeechModel/keepsLoadedModels``).
    var keeping: Bool {
        get { state.withLock { $0.keeping } }
        set {
            let dropped = state.withLock { s in
                s.keeping = newValue
                return newValue ? [] : s.trimmed(to: 0)
            }
            dispose(dropped)
        }
    }

    /// At most this many idle decoders are kept, over all keys; past it the least recently
    /// given back is freed (``SpeechModel/loadedModelsLimit``).
    var limit: Int {
        get { state.withLock { $0.limit } }
        set { dispose(state.withLock { s in s.limit = max(0, newValue); return s.trimmed(to: s.limit) }) }
    }

    /// An idle decoder loaded with `key`'s model and settings (the most recently given back), or nil.
    func take(_ key: String) -> Entry? {
        state.withLock { s in
            guard s.keeping, let i = s.idle.lastIndex(where: { $0.key == key }) else { return nil }
            return s.idle.remove(at: i).entry.value
        }
    }

    /// Keeps `entry` for the next taker of `key`, started over; drops it when not keeping, and
    /// frees the least recently given back past ``limit``.
    func give(_ entry: Entry, key: String) {
        entry.decoder.startOver()
        let box = UncheckedSendable(entry)
        let dropped = state.withLock { s in
            guard s.keeping else { return [box] }
            s.idle.append((key, box))
            return s.trimmed(to: s.limit)
        }
        dispose(dropped)
    }

    /// Freed after the lock is let go: freeing a decoder takes a while.
    private func dispose(_ entries: [UncheckedSendable<Entry>]) { withExtendedLifetime(entries) {} }

    /// How many decoders are idle (tests).
    var idleCount: Int { state.withLock { $0.idle.count } }

    /// What makes two loads the same: every file (its stamp, so an edited vocabulary or
    /// grammar is loaded again) and every setting the decoder is built with.
    static func key(_ parts: [String], files: [String]) -> String {
        (parts + FileStamp.of(all: files)).joined(separator: "\u{1F}")
    }
}
