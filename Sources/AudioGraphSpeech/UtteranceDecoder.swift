import AudioGraphCore
import AudioGraphDSP

/// The recognizer's decoding thread: turns 16 kHz blocks, and the boundary markers that
/// travel with them, into PocketSphinx utterances, partial results and final results.
///
/// With a language model and a live final pass, an utterance as the session reports it may
/// be decoded in parts: inside an utterance, each `speech-end` closes the decoder's
/// utterance after `Tuning.trailingSeconds` of the silence that follows, and speech that
/// resumes before the end-of-speech window has elapsed opens the next part (cepstral mean
/// carried over) whose result is appended. So the decoder's final pass runs while the window
/// elapses rather than after it, and the window's silence is never decoded. Tuning
/// constants: `Tuning`; what they were measured on: TUNING.md.
///
/// Not thread-safe: one decoding thread drives it. (Past 300 lines on purpose: the state and
/// every transition of `Phase` read in one file; feeding, tentative parts and tuning are apart.)
final class UtteranceDecoder {
    /// What the node's parameters say about decoding.
    struct Settings {
        var nodeId: String
        var segmentation: Recognizer.Segmentation
        var finalPass: Recognizer.FinalPass
        /// Samples between partial results (0: none).
        var partialFrames: Int
        var alternatives: Int
        /// Seconds of the first utterance held back to measure its cepstral mean.
        var cmnLookahead: Double
        /// Whether utterances may be decoded in parts: a language model's search, with a live
        /// final pass (a grammar wants the whole sentence in one search).
        var decodesInParts: Bool
        /// Whether final results' confidences follow the session's share of right words.
        var sessionCalibration = false
    }


    let settings: Settings
    let decoder: PocketSphinxDecoder
    /// Hands an event to the node, stamped with the stream time of the audio taken in so far.
    let emit: (EngineEvent, Double) -> Void
    let isCancelled: () -> Bool
    /// Told the stream time up to which everything has been reported, after each marker (its
    /// event may then be delivered while the rest of the block is decoded).
    let reached: (Double) -> Void
    /// Largest block, in samples.
    let capacity: Int
    let scratch: UnsafeMutablePointer<Int16>
    var preroll: [Int16]
    /// Absolute index of the next sample to arrive.
    var next: Int64 = 0
    /// Stream time minus `next`'s time, from the latest block (they part when blocks are lost).
    var streamShift = 0.0
    /// Stream time of the audio taken in so far.
    var position: Double { Double(next) / 16000 + streamShift }

    /// Where the decoder is between and inside utterances.
    ///
    ///     idle ──hint──► tentative ──onset──► speaking ◄──resume── paused
    ///       ▲  ◄─dropped / pre-roll spent─┘      │ ▲ speech-end        ▲
    ///       │                                   ▼ │ speech            │ trailing silence decoded
    ///       └──────── utterance-end ───────── closing(samplesLeft) ───┘
    ///
    /// (`idle` ──onset──► `speaking` directly without a hint; any open phase ──utterance end──► `idle`.)
    enum Phase: Equatable {
        /// Between utterances: the audio only goes into the pre-roll.
        case idle
        /// Decoding from the vad's hint of possible speech before its onset is confirmed: no
        /// utterance yet, no partial results; undone if the hint is dropped.
        case tentative
        /// An utterance is open and its current part is being decoded.
        case speaking
        /// An utterance is open; its part closes after `samplesLeft` more samples of the
        /// silence that followed a `speech-end` (decoding in parts).
        case closing(samplesLeft: Int)
        /// An utterance is open between two parts: the last one closed at a pause, the next
        /// opens when speech resumes.
        case paused
    }
    var phase = Phase.idle
    /// Whether an utterance is open (the decoder may be between two of its parts).
    var open: Bool {
        switch phase {
        case .speaking, .closing, .paused: true
        case .idle, .tentative: false
        }
    }
    /// Whether the decoder's part began at a vad `speechPossible` hint and awaits its
    /// `speechStart` (decoded, but no partial results yet) or its `speechDropped` (undone).
    var tentative: Bool { phase == .tentative }
    /// Whether utterances begin at the vad's markers (false: an assistant waits for its wake
    /// word; the audio only goes into the pre-roll, so a command's lead-in is there).
    var listening = true
    /// The measured cepstral mean from before the tentative part, to put back if it is undone.
    var meanBeforeTentative: PocketSphinxDecoder.CepstralMean?
    /// Whether the vad's last hint of possible speech awaits its outcome.
    var possibleSpeech = false
    /// Absolute sample by which the vad resolves that hint.
    var possibleUntil: Int64 = 0
    var utterance = 0
    /// Onset of the utterance (seconds).
    var start = 0.0
    /// Results of the utterance's closed parts.
    var parts: [RecognitionResult] = []
    /// The closed parts' text, ahead of the current part's hypothesis in partial results.
    var prefix = ""
    /// Absolute index where the last part's audio ended.
    var partEnd: Int64 = 0
    /// Absolute index of the first sample fed for the current part.
    var feedFrom: Int64 = 0
    /// Where the current part's audio starts (seconds): its word times count from there.
    var feedStart: Double { Double(feedFrom) / 16000 }

    var sinceLastPartial = 0
    var lastPartial = ""

    // With `final: utterance`, the utterance's audio is kept and decoded again, whole, when
    // it ends; the live pass then only serves partial results (and is skipped when there
    // are none).
    let wholePass: Bool
    /// Seconds decoded from before each onset (`wholeLeadIn` or `liveLeadIn`).
    let leadIn: Double
    /// Exact zeros become `faintNoise` when the decoder's own silence removal is off.
    let fillsDigitalSilence: Bool
    let livePass: Bool
    /// Whether utterances start decoding at the vad's `speechPossible` hints (only partial
    /// results come sooner for it).
    var speculates: Bool { settings.partialFrames > 0 }
    var batch: [Int16] = []
    /// The stream's voicing over the last `Tuning.voicingSeconds`, for the words' confidences.
    let voicing: VoicingTrack?
    /// The session's share of right words, as its confidences say (nil: off).
    var calibration: SessionCalibration?

    // Single pass (final=live): the model wants each utterance normalised by its own
    // cepstral mean, which a live pass cannot know in advance. Hold the session's first
    // `seedFrames` (after the lead-in), measure their mean on a side front end, start the
    // decoder's normalisation there, decode what was held, and keep updating the mean as
    // the utterance goes on (PocketSphinx's own running mean does far worse: TUNING.md).
    let seedFrames: Int
    var seeding = false
    var seedTarget = 0
    var held: [Int16] = []
    /// Samples of `held` the preview search has decoded.
    var previewed = 0

    init(settings: Settings, decoder: PocketSphinxDecoder, blockCapacity: Int,
         emit: @escaping (EngineEvent, Double) -> Void, isCancelled: @escaping () -> Bool,
         reached: @escaping (Double) -> Void = { _ in }) {
        self.settings = settings
        self.decoder = decoder
        self.emit = emit
        self.isCancelled = isCancelled
        self.reached = reached
        capacity = blockCapacity
        let prerollLength = Int(Tuning.prerollSeconds * 16000)
        scratch = .allocate(capacity: max(capacity, prerollLength))
        preroll = [Int16](repeating: 0, count: prerollLength)
        wholePass = settings.finalPass == .utterance
        leadIn = wholePass ? Tuning.wholeLeadIn : Tuning.liveLeadIn
        fillsDigitalSilence = !decoder.dropsSilence
        livePass = !wholePass || settings.partialFrames > 0
        seedFrames = wholePass ? 0 : Int(settings.cmnLookahead * 16000)
        held.reserveCapacity(Int((Tuning.prerollSeconds + settings.cmnLookahead) * 16000) + Tuning.previewReach + capacity)
        voicing = VoicingTrack(seconds: Tuning.voicingSeconds)
        calibration = settings.sessionCalibration ? SessionCalibration() : nil
    }

    deinit { scratch.deallocate() }

    /// Whether nothing will be reported before the vad's next onset: between utterances
    /// (a tentative part reports nothing until its onset is confirmed).
    var awaitsOnset: Bool { !open && settings.segmentation != .whole }

    /// Decodes one block, split at each marker's decision point.
    func take(_ block: AudioBuffer) {
        let n = block.frameLength
        streamShift = block.time - Double(next) / 16000
        if settings.segmentation == .whole && !open && n > 0 && listening { begin(at: block.time) }
        var done = 0
        for m in block.markers where listening {
            let at = max(done, min(n, Int(((m.decided - block.time) * 16000).rounded())))
            feed(block.channel(0) + done, at - done)
            done = at
            switch (m.kind, settings.segmentation) {
            case (.speechPossible, .speech), (.speechPossible, .endOfSpeech):
                possibleSpeech = true
                possibleUntil = Int64(((m.resolvesBy - streamShift) * 16000).rounded())
                speculate(from: m.t)
            case (.speechDropped, _):
                possibleSpeech = false
                if tentative { abandon() }
            case (.speechStart, .speech), (.speechStart, .endOfSpeech):
                possibleSpeech = false
                if tentative && leadInStart(m.t) < feedFrom - Int64(Tuning.leadInSlack * 16000) {
                    abandon()  // the onset lies before the tentative part's audio
                    begin(at: m.t)
                } else if tentative {
                    confirm(at: m.t)
                } else if !open {
                    begin(at: m.t)
                } else if !decoder.inUtterance {
                    resume(at: m.t)
                } else {
                    phase = .speaking  // speech resumed within the trailing silence
                }
            case (.speechEnd, .endOfSpeech):
                if open && decoder.inUtterance && settings.decodesInParts { phase = .closing(samplesLeft: Int(Tuning.trailingSeconds * 16000)) }
            case (.speechEnd, .speech), (.utteranceEnd, .endOfSpeech):
                if open { end(at: m.t) }
                speculate(from: Double(next) / 16000 - Tuning.weakLookback)
            default: break
            }
            reached(position)
        }
        feed(block.channel(0) + done, n - done)
    }

    /// Drops the utterance in flight (or the tentative part) without a result.
    func drop() {
        if tentative { abandon() }
        guard open else { return }
        phase = .idle
        if decoder.inUtterance { decoder.endUtterance() }
        parts.removeAll(keepingCapacity: true)
        batch.removeAll(keepingCapacity: true)
        if seeding { seeding = false; held.removeAll(keepingCapacity: true); previewed = 0 }
    }

    /// Ends the utterance in flight at the end of the stream.
    func finish() {
        if tentative { abandon() }
        if open { end(at: Double(next) / 16000) }
    }

    func begin(at t: Double) {
        startFirstPart(at: t)
        openUtterance(at: t)
    }

    /// Numbers a new utterance that began at `t` and starts its bookkeeping.
    func openUtterance(at t: Double) {
        utterance += 1
        phase = .speaking
        parts.removeAll(keepingCapacity: true)
        prefix = ""
        start = max(0, t)
        lastPartial = ""
    }

    /// Starts decoding a new utterance's audio. The session's first utterance holds its
    /// look-ahead to measure a mean; later ones start from the mean carried over
    /// (`Tuning.carriedMeanFrames`) and update it as they go: no hold, so their partials come sooner.
    func startFirstPart(at t: Double) {
        seeding = seedFrames > 0 && utterance == 0
        if seeding { decoder.startCepstralMean() }
        startPart(at: t, notBefore: 0)
        seedTarget = held.count + seedFrames
    }

    /// Opens the next part of the utterance when speech resumes after a closed part.
    func resume(at t: Double) {
        prefix = RecognitionResult.joinedText(parts.map(\.text))
        startPart(at: t, notBefore: partEnd)
    }

    /// Starts a decoder utterance and feeds it the pre-roll from shortly before `t`.
    func startPart(at t: Double, notBefore first: Int64) {
        decoder.startUtterance()
        if open { phase = .speaking }  // a resumed part (a new utterance's caller sets its phase)
        if seedFrames > 0 && !seeding {
            decoder.continueCepstralMean(keepingFrames: Tuning.carriedMeanFrames)
            decoder.applyCepstralMean()
        }
        let from = max(leadInStart(t), first)
        feedFrom = from
        replayPreroll(from: from) { n in
            // Not `consume`: no partial is due yet, and a carried-over mean does not take in the lead-in.
            if wholePass { batch.append(contentsOf: UnsafeBufferPointer(start: scratch, count: n)) }
            if seeding {
                held.append(contentsOf: UnsafeBufferPointer(start: scratch, count: n))
                decoder.measureCepstralMean(scratch, count: n)
            } else if livePass {
                decoder.process(scratch, count: n)
            }
        }
        if !seeding && !tentative && livePass && seedFrames > 0 { measureSinceOnset(t) }
        sinceLastPartial = 0
    }

    /// The first sample of an onset at `t` with its lead-in, as far as the pre-roll reaches.
    func leadInStart(_ t: Double) -> Int64 {
        max(next - Int64(preroll.count), Int64(((t - leadIn) * 16000).rounded()), 0)
    }

    /// Closes the decoder's utterance and keeps its result as the utterance's next part.
    func closePart(at t: Double, endingAt endSample: Int64) {
        if open { phase = .paused }
        partEnd = endSample
        if seeding { releaseHeld() }  // shorter than the look-ahead
        if wholePass {
            decoder.endUtterance()  // the live pass, if any, is done
            if !isCancelled() && !batch.isEmpty {
                if !livePass {
                    // No live pass has moved PocketSphinx's running mean to this speaker and
                    // channel: normalise with the utterance's own.
                    decoder.startCepstralMean()
                    batch.withUnsafeBufferPointer { decoder.measureCepstralMean($0.baseAddress!, count: $0.count) }
                    decoder.applyCepstralMean()
                }
                decoder.startUtterance()
                batch.withUnsafeBufferPointer { decoder.process($0.baseAddress!, count: $0.count, wholeUtterance: true) }
            }
            batch.removeAll(keepingCapacity: true)
        }
        decoder.endUtterance()
        guard !isCancelled() else { return }
        parts.append(decoder.result(utterance: utterance, start: feedStart, end: t, alternatives: settings.alternatives))
        // PocketSphinx frees each utterance's lattice and tables into malloc's per-thread
        // arena, which glibc keeps: hand it back so a long session's memory stays flat.
        PocketSphinxDecoder.releaseFreeMemory()
    }

    func end(at t: Double) {
        if decoder.inUtterance { closePart(at: t, endingAt: next) }
        phase = .idle
        defer { parts.removeAll(keepingCapacity: true) }
        guard !isCancelled(), !parts.isEmpty else { return }
        var result = RecognitionResult(joining: parts, start: start, end: t)
        if let v = voicing?.loudHalfVoicing(result.words.map { ($0.start, $0.end) }) { result = ConfidenceModel.voiced(result, v) }
        if calibration != nil { result = calibration!.calibrate(result) }
        emit(.final(node: settings.nodeId, result: result), position)
    }

    var awaitingFirstWords: Bool { settings.partialFrames > 0 && lastPartial.isEmpty && !tentative }

    func reportPartialIfDue() {
        let partialFrames = settings.partialFrames
        guard partialFrames > 0 && !tentative else { return }
        let due = lastPartial.isEmpty ? min(partialFrames, Tuning.firstWordsStep) : partialFrames
        guard sinceLastPartial >= due else { return }
        sinceLastPartial = 0
        let h = RecognitionResult.joinedText([prefix, decoder.hypothesis()])
        if h != lastPartial && !h.isEmpty {
            lastPartial = h
            emit(.partial(node: settings.nodeId, utterance: utterance, text: h), position)
        }
    }
}
