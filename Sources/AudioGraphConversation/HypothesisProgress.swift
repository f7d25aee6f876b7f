import AudioGraphCore
import Synchronization

/// How a recognizer's grammar search stands, for an end-of-speech detector upstream of it
/// (grammar-aware end of speech): whether the best hypothesis so far is a whole sentence of
/// the grammar, as of which stream time.
///
/// The recognizer's decoding thread reports after each block it decodes; the end-of-speech
/// detector reads on the render thread, which runs ahead of it: it asks about a stream time
/// and waits (file input) or looks again later (live input) until the decoder has got there,
/// so a file gives the decisions of a live run. A `verdict` control connection carries one.
/// Lock-free.
package final class HypothesisProgress: ControlChannel {
    /// What the decoder says about the audio up to a stream time.
    package enum Verdict: UInt8, Sendable {
        /// No grammar search listens (between commands of an assistant, or none at all).
        case notTracking
        /// The hypothesis is the beginning of a sentence, or no sentence at all.
        case incomplete
        /// The hypothesis is a whole sentence of the grammar.
        case complete
    }

    private let through = Atomic<UInt64>((-Double.infinity).bitPattern)
    private let verdict = Atomic<UInt8>(Verdict.notTracking.rawValue)
    private let present = Atomic<Bool>(false)
    private let progressed: Readiness?

    /// No reports yet: nothing decoded, not tracking. `progressed` is signalled with each
    /// report (the render thread may be waiting for a verdict).
    package init(progressed: Readiness? = nil) { self.progressed = progressed }

    /// What a `verdict` control connection carries: reports signal `renderReady`.
    package convenience init(renderReady: Readiness) { self.init(progressed: renderReady) }

    /// Whether a recognizer with a grammar search reports here (set when it is prepared).
    package var hasReporter: Bool {
        get { present.load(ordering: .acquiring) }
        set { present.store(newValue, ordering: .releasing) }
    }

    /// The decoder has decoded up to stream time `t`; what it makes of it.
    package func report(through t: Double, _ v: Verdict) {
        verdict.store(v.rawValue, ordering: .relaxed)
        through.store(t.bitPattern, ordering: .releasing)
        progressed?.signal()
    }

    /// The verdict once audio up to `t` has been decoded; nil before.
    package func verdict(asOf t: Double) -> Verdict? {
        guard Double(bitPattern: through.load(ordering: .acquiring)) >= t else { return nil }
        return Verdict(rawValue: verdict.load(ordering: .relaxed))
    }

    /// Forgets the reports (a new run).
    package func reset() {
        through.store((-Double.infinity).bitPattern, ordering: .relaxed)
        verdict.store(Verdict.notTracking.rawValue, ordering: .relaxed)
    }
}
