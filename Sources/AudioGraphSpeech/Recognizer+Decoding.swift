import AudioGraphCore
import Foundation
import Synchronization

/// The recognizer's decoding thread: takes the queued blocks in order, hands them to the
/// utterance decoder (or, in assistant mode, the ``CommandListener``), and tells the engine
/// how far through the stream it has reported.
extension Recognizer {
    /// Between utterances, having decoded up to `processed`: the stream time before which
    /// nothing will be reported, the next onset queued (partial results start there) or, with
    /// none, the end of the audio queued. Decoding thread; `pending` is its look at `onsets`.
    func noEventsBefore(after processed: Double, pending: inout Double?) -> Double {
        guard !onsetsLost.load(ordering: .relaxed) else { return processed }
        let queued = Double(bitPattern: enqueuedEnd.load(ordering: .acquiring))
        while pending.map({ $0 < processed }) ?? true {  // at `processed` itself: maybe not yet taken
            guard let t = onsets.pop() else {
                pending = nil
                return max(processed, queued)
            }
            pending = t
        }
        return pending!
    }

    /// Tells an end-of-speech detector whether the command so far is a whole sentence of the grammar.
    func reportProgress(_ utterances: UtteranceDecoder, _ decoder: PocketSphinxDecoder, through t: Double) {
        guard let automaton else { return }
        // Between commands, and outside an utterance (the wake word's own), no grammar listens.
        guard listener?.isListening != false && utterances.open && !utterances.tentative else {
            return progress.report(through: t, .notTracking)
        }
        let complete = automaton.accepts(decoder.hypothesis())
        progress.report(through: t, complete ? .complete : .incomplete)
    }

    /// How utterances are delimited, from what the graph upstream produces.
    enum Segmentation {
        /// No detector upstream: the whole stream is one utterance.
        case whole
        /// A `vad` upstream: one utterance per speech region.
        case speech
        /// An `end-of-speech` upstream: utterances end at its `utterance-end` markers.
        case endOfSpeech
    }

    /// The decoding thread.
    func decode(_ queue: BlockQueue, _ decoder: PocketSphinxDecoder) {
        let settings = UtteranceDecoder.Settings(
            nodeId: nodeId, segmentation: segmentation, finalPass: finalPass, partialFrames: partialFrames,
            alternatives: alternatives, cmnLookahead: cmnLookahead,
            decodesInParts: finalPass == .live && { if case .languageModel = search { true } else { false } }())
        let listener = self.listener
        var reported: RecognitionResult?
        let utterances = UtteranceDecoder(
            settings: settings, decoder: decoder, blockCapacity: queue.blocks[0].frameCapacity,
            emit: { [results, eventsReady] e, at in
                results.withLock { $0.events.append(StreamEvent(at: at, e)) }
                if case .final(_, let r) = e { reported = r }
                eventsReady.signal()
            },
            isCancelled: { self.cancelled.load(ordering: .relaxed) },
            reached: { [results] t in results.withLock { $0.through = max($0.through, t) } })
        var nextOnset: Double?
        var finishedEarly = false
        listener?.start()
        while true {
            guard let (index, block) = queue.next() else {
                if done.load(ordering: .acquiring) {
                    if queue.hasData { continue }  // a block landed after next(): take it
                    break
                }
                if !finishedEarly && inputEnded.load(ordering: .acquiring) && !queue.hasData {
                    finishedEarly = true
                    utterances.finish()
                    results.withLock { $0.through = .infinity }
                    eventsReady.signal()
                }
                queue.waitForData(timeout: 0.005)
                continue
            }
            if !cancelled.load(ordering: .relaxed) {
                if let listener {
                    listener.take(block, utterances)
                    if let r = reported { listener.reported(r, utterances) }
                } else {
                    utterances.take(block)
                }
                reported = nil
                reportProgress(utterances, decoder, through: block.endTime)
            }
            let end = block.endTime
            queue.release(index)
            let through = utterances.awaitsOnset && listener == nil ? noEventsBefore(after: end, pending: &nextOnset) : end
            results.withLock { $0.through = max($0.through, through) }
        }
        if !finishedEarly { utterances.finish() }
        results.withLock { $0.through = .infinity }
        eventsReady.signal()
    }
}
