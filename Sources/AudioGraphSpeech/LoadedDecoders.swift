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

    private let state = Mutex<(keeping: Bool, idle: [String: [UncheckedSendable<Entry>]])>((false, [:]))

    /// Whether decoders are kept (``SpeechModel/keepsLoadedModels``).
    var keeping: Bool {
        get { state.withLock { $0.keeping } }
        set {
            // Taken out under the lock, freed after it (freeing a decoder takes a while).
            let dropped = state.withLock { s -> [String: [UncheckedSendable<Entry>]] in
                s.keeping = newValue
                guard !newValue else { return [:] }
                defer { s.idle = [:] }
                return s.idle
            }
            withExtendedLifetime(dropped) {}
        }
    }

    /// An idle decoder loaded with `key`'s model and settings, or nil.
    func take(_ key: String) -> Entry? {
        state.withLock { s in
            guard s.keeping, var list = s.idle[key], let e = list.popLast() else { return nil }
            s.idle[key] = list.isEmpty ? nil : list
            return e.value
        }
    }

    /// Keeps `entry` for the next taker of `key`, started over; drops it when not keeping.
    func give(_ entry: Entry, key: String) {
        entry.decoder.startOver()
        let box = UncheckedSendable(entry)
        state.withLock { s in
            if s.keeping { s.idle[key, default: []].append(box) }
        }
    }

    /// How many decoders are idle (tests).
    var idleCount: Int { state.withLock { $0.idle.values.reduce(0) { $0 + $1.count } } }

    /// What makes two loads the same: every file (its stamp, so an edited vocabulary or
    /// grammar is loaded again) and every setting the decoder is built with.
    static func key(_ parts: [String], files: [String]) -> String {
        (parts + FileStamp.of(all: files)).joined(separator: "\u{1F}")
    }
}
