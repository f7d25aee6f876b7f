import AudioGraphConversation
import AudioGraphCore

/// A recognizer's `verdict` control output: after each block it decodes, whether the command
/// so far is a whole sentence of its grammar, for an end-of-speech detector connected to it
/// (grammar-aware end of speech). Decoding thread.
struct GrammarVerdicts {
    /// The grammar's automaton.
    let automaton: GrammarAutomaton
    /// Where the verdicts go (the channel the `verdict` connection carries).
    let progress: HypothesisProgress

    /// Reports the verdict on the audio decoded through `t`. `listening`: a grammar search
    /// listens (in assistant mode only for a command, never for the wake word).
    func report(_ utterances: UtteranceDecoder, _ decoder: PocketSphinxDecoder, listening: Bool, through t: Double) {
        // Between commands, and outside an utterance (the wake word's own), no grammar listens.
        guard listening && utterances.open && !utterances.tentative else {
            return progress.report(through: t, .notTracking)
        }
        progress.report(through: t, automaton.accepts(decoder.hypothesis()) ? .complete : .incomplete)
    }
}
