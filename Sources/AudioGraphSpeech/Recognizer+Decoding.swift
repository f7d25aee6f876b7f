import AudioGraphDSP
import AudioGraphCore
import Foundation
import Synchronization

/// The recognizer's decoding thread: takes the queued blocks in order, hands them to the
/// utterance decoder (or, in assistant mode, the ``CommandListener``), and tells the engine
/// how far through the stream it has reported.
extension Recognizer {
    /// How utterances are delimited, from what the graph upstream produces.
    enum Segmentation {
        /// No detector upstream: the whole stream is one utterance.
        case whole
        /// A `vad` upstream: one utterance per speech region.
        case speech
        /// An `end-of-speech` upstream: utterances end at its `utterance-end` markers.
        case endOfSpeech
    }

    /// Measured on ../shared/corpus: its speech as it is, then the same once at 8 kHz (sox),
    /// through `run transcribe` (docs/benchmarks.md).
    static let narrowbandWarning = "its input holds nothing above 4 kHz (a telephone recording, a Bluetooth headset in its "
        + "headset profile, or audio once at 8 kHz); the model was trained on 16 kHz speech: expect more errors "
        + "(on this project's test recordings, 25 % of words wrong as recorded, 45 % once at 8 kHz)"

    /// The decoding thread.
    func decode(_ stage: LaggingStage, _ decoder: PocketSphinxDecoder) {
        let settings = UtteranceDecoder.Settings(
            nodeId: nodeId, segmentation: segmentation, finalPass: settings.finalPass, partialFrames: settings.partialFrames,
            alternatives: settings.alternatives, cmnLookahead: settings.cmnLookahead,
            decodesInParts: settings.finalPass == .live && settings.search.isLanguageModel,
            sessionCalibration: settings.sessionCalibration)
        let listener = self.listener
        var reported: RecognitionResult?
        let utterances = UtteranceDecoder(
            settings: settings, decoder: decoder, blockCapacity: stage.queue.blocks[0].frameCapacity,
            emit: { e, at in
                stage.emit(e, at: at)
                if case .final(_, let r) = e { reported = r }
            },
            isCancelled: { stage.isCancelled },
            reached: { t in stage.reached(t) })
        var finishedEarly = false
        var interruption: Interruption?
        // Audio past full scale (a gain or mixer before it, a float file at the wrong scale)
        // is clipped into PocketSphinx's 16-bit samples: counted, and said at the end.
        var clipped = ClippedSamples()
        // Speech with nothing above 4 kHz is said once, when the probe has heard enough of it.
        var bandwidth = BandwidthProbe()
        listener?.start()
        // The input may end while the run goes on (other sources): end the utterance in
        // flight and report through the end, so the events of nodes still running are not
        // held back for this one.
        while let (index, block) = stage.next(onInputEnd: {
            finishedEarly = true
            utterances.finish()
            stage.reachedEnd()
        }, onIdle: {
            decoder.prepareForSpeech()  // while waiting for audio (else its first utterance does it)
        }) {
            if let failure = decoder.searchFailure {
                stage.release(index)
                model.fail(failure, stage)
                while let (index, _) = stage.next() { stage.release(index) }
                return
            }
            clipped.scan(block.channel(0), block.frameLength, time: block.time, rate: 16000)
            if bandwidth.scan(block.channel(0), block.frameLength) == .narrow {
                stage.emit(.warning(node: nodeId, message: Self.narrowbandWarning), at: block.endTime)
            }
            if !stage.isCancelled {
                // Words from code join before the first utterance or between two.
                if !utterances.open && words.addPending(to: decoder, stage, at: block.time) { model.changed() }
                if let listener {
                    // A barge-in goes with the block it came in (the same block in every file run).
                    if interruption == nil { interruption = interruptions.pop() }
                    var bargeIn: Double?
                    if let i = interruption, block.time >= i.from {
                        bargeIn = i.onset
                        interruption = nil
                    }
                    listener.take(block, utterances, bargeIn: bargeIn)
                    if let r = reported { listener.reported(r, utterances) }
                } else {
                    utterances.take(block)
                }
                reported = nil
                verdicts?.report(utterances, decoder, listening: listener?.isListening != false, through: block.endTime)
            }
            let end = block.endTime
            stage.release(index)
            // Between utterances nothing is reported before the next onset.
            if utterances.awaitsOnset && listener == nil { stage.reachedIdle(after: end) } else { stage.reached(end) }
        }
        if !finishedEarly { utterances.finish() }
        if let failure = decoder.searchFailure { model.fail(failure, stage) }
        if let report = clipped.report("for decoding") {
            stage.emit(.warning(node: nodeId, message: report + ": lower the gain before the recognizer"), at: .infinity)
        }
    }
}
