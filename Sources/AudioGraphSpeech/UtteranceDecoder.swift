import AudioGraphCore
import CPocketSphinx

/// The recognizer's decoding thread: turns 16 kHz blocks, and the boundary markers that
/// travel with them, into PocketSphinx utterances, partial results and final results.
///
/// With a language model and a live final pass, an utterance as the session reports it may
/// be decoded in parts: inside an utterance, each `speech-end` closes the decoder's
/// utterance after ``trailingSeconds`` of the silence that follows, and speech that resumes
/// before the end-of-speech window has elapsed opens the next part (cepstral mean carried
/// over) whose result is appended. So the decoder's final pass runs while the window elapses rather than
/// after it, and the window's silence is never decoded. Measured on the corpus with 2 s of
/// silence after each file, `--realtime`: final after `utterance-end` p50 225 -> 0 ms, p90
/// 1000 -> 35 ms; WER 25.3 % either way; CPU 5 % lower.
///
/// Not thread-safe: one decoding thread drives it.
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
    }

    /// How much of the previous utterances' cepstral mean a new utterance starts from
    /// (10 ms frames), so the mean follows a change of microphone or room within minutes.
    static let carriedMeanFrames = 3000
    /// Audio kept before an onset so the first words are decoded from their start.
    static let prerollSeconds = 1.0
    /// Audio fed from before the onset: soft onsets start before the VAD's t, and the decoder
    /// wants some silence first. The whole-utterance pass, which measures its cepstral mean
    /// over the utterance, wants 0.3 s (corpus WER 24.0 %; 27.9 % with 0.15 s). The live pass,
    /// normalised by the carried-over mean, does best with 0.2 s (24.0 %; 0.1 s 24.7 %,
    /// 0.3 s 25.3 %; first-partial latency the same with either).
    static let wholeLeadIn = 0.3
    static let liveLeadIn = 0.2
    /// Silence decoded after a `speech-end` (on top of the vad's hangover) before the part
    /// closes: the decoder wants some (corpus WER 26.0 % with 0.2 s, 25.3 % with 0.3 s, 25.6 % with 0.4 s).
    static let trailingSeconds = 0.3

    private let settings: Settings
    private let decoder: PocketSphinxDecoder
    /// Hands an event to the node, stamped with the stream time of the audio taken in so far.
    private let emit: (EngineEvent, Double) -> Void
    private let isCancelled: () -> Bool
    /// Told the stream time up to which everything has been reported, after each marker (its
    /// event may then be delivered while the rest of the block is decoded).
    private let reached: (Double) -> Void
    /// Largest block, in samples.
    private let capacity: Int
    private let scratch: UnsafeMutablePointer<Int16>
    private var preroll: [Int16]
    /// Absolute index of the next sample to arrive.
    private var next: Int64 = 0
    /// Stream time minus `next`'s time, from the latest block (they part when blocks are lost).
    private var streamShift = 0.0
    /// Stream time of the audio taken in so far.
    private var position: Double { Double(next) / 16000 + streamShift }

    /// Whether an utterance is open (the decoder may be between two of its parts).
    private var open = false
    /// Whether the decoder's part began at a vad `speechPossible` hint and awaits its
    /// `speechStart` (decoded, but no partial results yet) or its `speechDropped` (undone).
    private var tentative = false
    /// The measured cepstral mean from before the tentative part, to put back if it is undone.
    private var meanBeforeTentative: ag_cmn_meter_state_t?
    /// Whether the vad's last hint of possible speech awaits its outcome.
    private var possibleSpeech = false
    private var utterance = 0
    /// Onset of the utterance (seconds).
    private var start = 0.0
    /// Results of the utterance's closed parts.
    private var parts: [RecognitionResult] = []
    /// The closed parts' text, ahead of the current part's hypothesis in partial results.
    private var prefix = ""
    /// Samples of trailing silence still to decode before the current part closes (nil: none pending).
    private var closingIn: Int?
    /// Absolute index where the last part's audio ended.
    private var partEnd: Int64 = 0
    /// Absolute index of the first sample fed for the current part.
    private var feedFrom: Int64 = 0
    /// Where the current part's audio starts (seconds): its word times count from there.
    private var feedStart: Double { Double(feedFrom) / 16000 }

    private var sinceLastPartial = 0
    private var lastPartial = ""

    // With `final: utterance`, the utterance's audio is kept and decoded again, whole, when
    // it ends; the live pass then only serves partial results (and is skipped when there
    // are none).
    private let wholePass: Bool
    /// Seconds decoded from before each onset (`wholeLeadIn` or `liveLeadIn`).
    private let leadIn: Double
    /// Exact zeros become `faintNoise` when the decoder's own silence removal is off.
    private let fillsDigitalSilence: Bool
    private let livePass: Bool
    /// Whether utterances start decoding at the vad's `speechPossible` hints (only partial
    /// results come sooner for it).
    private var speculates: Bool { settings.partialFrames > 0 }
    private var batch: [Int16] = []

    // Single pass (final=live): the model wants each utterance normalised by its own
    // cepstral mean, which a live pass cannot know in advance. Hold the session's first
    // `seedFrames` (after the lead-in), measure their mean on a side front end, start the
    // decoder's normalisation there, decode what was held, and keep updating the mean as
    // the utterance goes on. Corpus WER: 48 % with PocketSphinx's running mean, 28.6 % this
    // way (the same for 0.1 to 1 s of look-ahead: following the mean does the work), 24.4 %
    // with a second whole-utterance pass.
    private let seedFrames: Int
    private var seeding = false
    private var seedTarget = 0
    private var held: [Int16] = []
    /// Samples of `held` the preview search has decoded.
    private var previewed = 0

    init(settings: Settings, decoder: PocketSphinxDecoder, blockCapacity: Int,
         emit: @escaping (EngineEvent, Double) -> Void, isCancelled: @escaping () -> Bool,
         reached: @escaping (Double) -> Void = { _ in }) {
        self.settings = settings
        self.decoder = decoder
        self.emit = emit
        self.isCancelled = isCancelled
        self.reached = reached
        capacity = blockCapacity
        let prerollLength = Int(Self.prerollSeconds * 16000)
        scratch = .allocate(capacity: max(capacity, prerollLength))
        preroll = [Int16](repeating: 0, count: prerollLength)
        wholePass = settings.finalPass == .utterance
        leadIn = wholePass ? Self.wholeLeadIn : Self.liveLeadIn
        fillsDigitalSilence = !decoder.dropsSilence
        livePass = !wholePass || settings.partialFrames > 0
        seedFrames = wholePass ? 0 : Int(settings.cmnLookahead * 16000)
        held.reserveCapacity(Int((Self.prerollSeconds + settings.cmnLookahead) * 16000) + Self.previewReach + capacity)
    }

    deinit { scratch.deallocate() }

    /// Whether nothing will be reported before the vad's next onset: between utterances
    /// (a tentative part reports nothing until its onset is confirmed).
    var awaitsOnset: Bool { !open && settings.segmentation != .whole }

    /// Decodes one block, split at each marker's decision point.
    func take(_ block: AudioBuffer) {
        let n = block.frameLength
        streamShift = block.time - Double(next) / 16000
        if settings.segmentation == .whole && !open && n > 0 { begin(at: block.time) }
        var done = 0
        for m in block.markers {
            let at = max(done, min(n, Int(((m.decided - block.time) * 16000).rounded())))
            feed(block.channel(0) + done, at - done)
            done = at
            switch (m.kind, settings.segmentation) {
            case (.speechPossible, .speech), (.speechPossible, .endOfSpeech):
                possibleSpeech = true
                speculate(from: m.t)
            case (.speechDropped, _):
                possibleSpeech = false
                if tentative { abandon() }
            case (.speechStart, .speech), (.speechStart, .endOfSpeech):
                possibleSpeech = false
                if tentative && leadInStart(m.t) < feedFrom - Int64(Self.leadInSlack * 16000) {
                    abandon()  // the onset lies before the tentative part's audio
                    begin(at: m.t)
                } else if tentative {
                    confirm(at: m.t)
                } else if !open {
                    begin(at: m.t)
                } else if !decoder.inUtterance {
                    resume(at: m.t)
                } else {
                    closingIn = nil  // speech resumed within the trailing silence
                }
            case (.speechEnd, .endOfSpeech):
                if open && decoder.inUtterance && settings.decodesInParts { closingIn = Int(Self.trailingSeconds * 16000) }
            case (.speechEnd, .speech), (.utteranceEnd, .endOfSpeech):
                if open { end(at: m.t) }
                speculate(from: Double(next) / 16000 - Self.weakLookback)
            default: break
            }
            reached(position)
        }
        feed(block.channel(0) + done, n - done)
    }

    /// Ends the utterance in flight at the end of the stream.
    func finish() {
        if tentative { abandon() }
        if open { end(at: Double(next) / 16000) }
    }

    private func begin(at t: Double) {
        startFirstPart(at: t)
        openUtterance(at: t)
    }

    /// Numbers a new utterance that began at `t` and starts its bookkeeping.
    private func openUtterance(at t: Double) {
        utterance += 1
        open = true
        parts.removeAll(keepingCapacity: true)
        prefix = ""
        start = max(0, t)
        lastPartial = ""
    }

    /// Starts decoding a new utterance's audio. The session's first utterance holds its
    /// look-ahead to measure a mean; later ones start from the mean carried over (30 s of
    /// speech worth) and update it as they go: no hold, so their partials come sooner
    /// (corpus WER 25.6 -> 25.3 %; 25.6 % with 5 s).
    private func startFirstPart(at t: Double) {
        seeding = seedFrames > 0 && utterance == 0
        if seeding { decoder.startCepstralMean() }
        startPart(at: t, notBefore: 0)
        seedTarget = held.count + seedFrames
    }

    /// Between utterances, starts decoding at the vad's hint of possible speech, 0.1-0.25 s
    /// before it confirms an onset, so that by then the decoder has caught up with the onset
    /// and its lead-in (which it decodes at about real time: most words may start there).
    /// No partial results until the onset is confirmed; undone if the hint is dropped, or
    /// once it has fed a pre-roll's worth of audio without being confirmed.
    /// Measured, `--realtime`, a 3-minute session, three A/B runs: first partial after the
    /// speech-start decision p50 200-260 -> 100 ms; p90 0.44-0.48 -> 0.35-0.44 s (set by a
    /// noisy 8 kHz recording whose weak evidence never pauses, so no hint comes); corpus WER
    /// unchanged (24.0 %).
    private func startTentatively(at t: Double) {
        meanBeforeTentative = decoder.savedCepstralMean()
        startFirstPart(at: t)
        tentative = true
    }

    /// Starts a tentative part from `t` while the vad's possible speech awaits its outcome
    /// and nothing else is being decoded: at the hint itself, and when an utterance ends
    /// with the hint still undecided (noise that keeps the weak evidence up through the
    /// pause, announced as the speech ended), from shortly before then, as the next onset
    /// may already have begun. Measured for the latter on a 3-minute realtime session,
    /// utterances 2-27: the first partial's p90 0.38 -> 0.28 s (the noisy 8 kHz recording's
    /// utterances follow each other that way); session WER unchanged (34.1 %).
    private func speculate(from t: Double) {
        guard speculates && possibleSpeech && !open && !tentative else { return }
        startTentatively(at: t)
    }

    /// How far back a tentative part started at an utterance end begins (before its
    /// lead-in): the vad back-dates an onset over up to 0.2 s of the weak frames before it.
    static let weakLookback = 0.2
    /// How much of an onset's lead-in a tentative part may lack before it is started again
    /// at the onset (as when an utterance ends after the next onset has begun).
    static let leadInSlack = 0.05

    /// The vad confirmed the onset: the tentative part goes on as the new utterance's first
    /// part, fed from the hint's lead-in (the onset itself may lie later in a long run of
    /// weak evidence; starting again there would cost a discarded part's closing pass).
    private func confirm(at t: Double) {
        tentative = false
        openUtterance(at: t)
        if seeding { seedTarget = held.count + seedFrames }  // the look-ahead counts from the confirmation
        reportPartialIfDue()
    }

    /// Undoes a tentative part: its decoding and its cepstral-mean measurements.
    private func abandon() {
        tentative = false
        decoder.endUtterance()
        decoder.restoreCepstralMean(meanBeforeTentative)
        seeding = false
        held.removeAll(keepingCapacity: true)
        previewed = 0
        batch.removeAll(keepingCapacity: true)
        closingIn = nil
        ag_release_free_memory()
    }

    /// Opens the next part of the utterance when speech resumes after a closed part.
    private func resume(at t: Double) {
        prefix = RecognitionResult.joinedText(parts.map(\.text))
        startPart(at: t, notBefore: partEnd)
    }

    /// Starts a decoder utterance and feeds it the pre-roll from shortly before `t`.
    private func startPart(at t: Double, notBefore first: Int64) {
        decoder.startUtterance()
        closingIn = nil
        if seedFrames > 0 && !seeding {
            decoder.continueCepstralMean(keepingFrames: Self.carriedMeanFrames)
            decoder.applyCepstralMean()
        }
        let from = max(leadInStart(t), first)
        feedFrom = from
        var k = from
        while k < next {
            let n = Int(min(next - k, Int64(capacity)))
            for i in 0..<n { scratch[i] = preroll[Int((k + Int64(i)) % Int64(preroll.count))] }
            // Not `consume`: no partial is due yet, and a carried-over mean does not take in the lead-in.
            if wholePass { batch.append(contentsOf: UnsafeBufferPointer(start: scratch, count: n)) }
            if seeding {
                held.append(contentsOf: UnsafeBufferPointer(start: scratch, count: n))
                decoder.measureCepstralMean(scratch, count: n)
            } else if livePass {
                decoder.process(scratch, count: n)
            }
            k += Int64(n)
        }
        sinceLastPartial = 0
    }

    /// The first sample of an onset at `t` with its lead-in, as far as the pre-roll reaches.
    private func leadInStart(_ t: Double) -> Int64 {
        max(next - Int64(preroll.count), Int64(((t - leadIn) * 16000).rounded()), 0)
    }

    /// Closes the decoder's utterance and keeps its result as the utterance's next part.
    private func closePart(at t: Double, endingAt endSample: Int64) {
        closingIn = nil
        partEnd = endSample
        if seeding { releaseHeld() }  // shorter than the look-ahead
        if wholePass {
            decoder.endUtterance()  // the live pass, if any, is done
            if !isCancelled() && !batch.isEmpty {
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
        ag_release_free_memory()
    }

    private func end(at t: Double) {
        open = false
        if decoder.inUtterance { closePart(at: t, endingAt: next) }
        defer { parts.removeAll(keepingCapacity: true) }
        guard !isCancelled(), !parts.isEmpty else { return }
        emit(.final(node: settings.nodeId, result: RecognitionResult(joining: parts, start: start, end: t)), position)
    }

    /// Takes `n` samples of float audio: into the pre-roll, and to the decoder while an
    /// utterance's part is open.
    private func feed(_ x: UnsafeMutablePointer<Float>, _ n: Int) {
        // A tentative part is undone once it has fed a pre-roll's worth unconfirmed: at that
        // exact sample, whatever the blocks (what the decoder took in leaves a trace).
        if tentative {
            let left = Int(max(0, feedFrom + Int64(preroll.count) - next))
            if left == 0 { abandon() } else if left < n {
                feed(x, left)
                return feed(x + left, n - left)
            }
        }
        for i in 0..<n {
            var v = PCM.int16(x[i])
            if v == 0 && fillsDigitalSilence { v = Self.faintNoise(next + Int64(i)) }
            scratch[i] = v
            preroll[Int((next + Int64(i)) % Int64(preroll.count))] = v
        }
        next += Int64(n)
        guard decoder.inUtterance else { return }  // an open utterance's part, or a tentative one
        let first = next - Int64(n)
        guard let left = closingIn else { return consume(scratch, n, from: first) }
        let m = min(n, left)
        consume(scratch, m, from: first)
        if m < left { closingIn = left - m; return }
        let end = next - Int64(n - m)  // the part ends exactly after its trailing silence
        closePart(at: Double(end) / 16000, endingAt: end)
    }

    /// Digital silence (exact zeros: a file's padding, a muted input) gives the decoder's
    /// front end log energies of minus infinity, which it handles badly once its own silence
    /// removal is off, as for a live final pass ("go forward" after zeros came out "go for"):
    /// such samples become a faint, fixed pseudo-random +-1 (real input, never exactly zero
    /// for long, is untouched). The whole-utterance pass keeps PocketSphinx's silence removal
    /// and its zeros (24.4 % corpus WER; 25.3 % with this noise).
    static func faintNoise(_ index: Int64) -> Int16 {
        (UInt64(bitPattern: index) &* 0x9E37_79B9_7F4A_7C15) >> 63 == 0 ? 1 : -1
    }

    /// Decodes the held look-ahead with the mean measured over it, then what the preview
    /// held past it as the utterance goes on.
    private func releaseHeld() {
        seeding = false
        decoder.endPreview()  // before the mean is set: ending an utterance moves PocketSphinx's own
        // The hold ends at the look-ahead's end, or past it where the preview stopped (a point
        // of the stream, whatever the blocks); the mean takes in all of it.
        let measured = min(held.count, max(seedTarget + Self.meanStep, previewed))
        previewed = 0
        held.withUnsafeBufferPointer { h in
            if measured > seedTarget { decoder.measureCepstralMean(h.baseAddress! + seedTarget, count: measured - seedTarget) }
            decoder.applyCepstralMean()
            var k = 0
            while k < measured {
                let n = min(capacity, measured - k)
                decoder.process(h.baseAddress! + k, count: n)
                k += n
            }
            sinceLastPartial = measured
            if measured < h.count {
                decodeFollowingTheMean(h.baseAddress! + measured, h.count - measured, from: feedFrom + Int64(measured))
            }
        }
        held.removeAll(keepingCapacity: true)
    }

    /// The session's first utterance is held until its cepstral mean is measured, and its
    /// held audio (lead-in, onset, look-ahead: 0.4-0.6 s) then decoded at once. Where speech
    /// begins every word may start, so the full search takes 1.2-1.9x real time there, which
    /// put that utterance's first partial 0.45-0.5 s after the speech-start decision at p90.
    /// So a search limited to fewer HMMs decodes the held audio first, with the same mean,
    /// in a fraction of that time, and goes on with the audio that follows until it finds
    /// words (at most `previewReach` on), holding it too. Its first words are reported at
    /// once and stand until the full search, decoding everything held from the start, has
    /// its own. Returns whether the hold goes on.
    ///
    /// The preview goes in 20 ms steps counted from the held audio's start, and stops after
    /// the step that shows words or at its reach: where it stops leaves a trace in the
    /// acoustic model's state (its Gaussian selection follows the frames before), so it must
    /// not depend on how the audio was cut into blocks.
    private func previewsFirstWords() -> Bool {
        guard decoder.hasPreview && settings.partialFrames > 0 && lastPartial.isEmpty else { return false }
        let limit = seedTarget + Self.previewReach, step = Self.firstWordsStep
        var k = previewed
        decoder.applyCepstralMean()
        held.withUnsafeBufferPointer { h in
            while k + step <= min(h.count, limit) && lastPartial.isEmpty {
                decoder.preview(h.baseAddress! + k, count: step)
                k += step
                sinceLastPartial += step
                reportPartialIfDue()
            }
        }
        previewed = k
        return lastPartial.isEmpty && held.count < limit
    }

    /// How much audio past the look-ahead the preview may hold while it looks for words
    /// (0.3 s: on the corpus it found them within 0.06-0.18 s where it needed more).
    static let previewReach = 4800

    /// Decodes samples of the current part and reports a partial result when one is due.
    private func consume(_ samples: UnsafePointer<Int16>, _ n: Int, from first: Int64) {
        if wholePass { batch.append(contentsOf: UnsafeBufferPointer(start: samples, count: n)) }
        guard livePass else { return }
        if seeding {
            // The look-ahead is measured to its exact end (a block's end is no boundary: live
            // blocks vary); audio held past it, while the preview looks for words, is
            // measured as it is decoded after the release.
            let measuring = tentative ? n : max(0, min(n, seedTarget - held.count))
            decoder.measureCepstralMean(samples, count: measuring)
            held.append(contentsOf: UnsafeBufferPointer(start: samples, count: n))
            guard held.count >= seedTarget + Self.meanStep && !tentative, !previewsFirstWords() else { return }
            releaseHeld()
            return reportPartialIfDue()
        }
        decodeFollowingTheMean(samples, n, from: first)
    }

    /// Decodes samples that begin at stream sample `first`, the cepstral mean following them:
    /// measured as they come, applied at fixed points of the stream (every `meanStep`
    /// samples), so the result does not depend on how the audio was cut into blocks (a live
    /// run's blocks vary with the server's timing). Until the first words show, looks for
    /// them every 20 ms; then at the `partials` cadence.
    private func decodeFollowingTheMean(_ samples: UnsafePointer<Int16>, _ n: Int, from first: Int64) {
        // A tentative part's audio is lead-in until confirmed: the carried-over mean does not
        // take it in, as for a part started at the confirmation.
        let measures = seedFrames > 0 && !tentative
        var k = 0
        while k < n {
            let position = first + Int64(k)
            var step = min(n - k, Self.meanStep - Int(position % Int64(Self.meanStep)))
            if awaitingFirstWords { step = min(step, Self.firstWordsStep) }
            if measures { decoder.measureCepstralMean(samples + k, count: step) }
            decoder.process(samples + k, count: step)
            sinceLastPartial += step
            k += step
            if seedFrames > 0 && (first + Int64(k)) % Int64(Self.meanStep) == 0 { decoder.applyCepstralMean() }
            reportPartialIfDue()
        }
    }

    /// Samples between looks for the first words of an utterance (20 ms).
    static let firstWordsStep = 320
    /// Samples between updates of the decoder's cepstral mean as it follows an utterance.
    static let meanStep = 512

    private var awaitingFirstWords: Bool { settings.partialFrames > 0 && lastPartial.isEmpty && !tentative }

    private func reportPartialIfDue() {
        let partialFrames = settings.partialFrames
        guard partialFrames > 0 && !tentative else { return }
        let due = lastPartial.isEmpty ? min(partialFrames, Self.firstWordsStep) : partialFrames
        guard sinceLastPartial >= due else { return }
        sinceLastPartial = 0
        let h = RecognitionResult.joinedText([prefix, decoder.hypothesis()])
        if h != lastPartial && !h.isEmpty {
            lastPartial = h
            emit(.partial(node: settings.nodeId, utterance: utterance, text: h), position)
        }
    }
}
