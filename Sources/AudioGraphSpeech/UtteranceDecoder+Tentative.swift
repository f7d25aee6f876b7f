/// Tentative parts: decoding from the vad's hint of possible speech, before its onset is
/// confirmed, so partial results come sooner (`Phase.tentative`).
extension UtteranceDecoder {
    /// Between utterances, starts decoding at the vad's hint of possible speech, 0.1-0.25 s
    /// before it confirms an onset, so that by then the decoder has caught up with the onset
    /// and its lead-in (which it decodes at about real time: most words may start there).
    /// No partial results until the onset is confirmed; undone if the hint is dropped, or
    /// once it has fed a pre-roll's worth of audio without being confirmed.
    func startTentatively(at t: Double) {
        meanBeforeTentative = decoder.savedCepstralMean()
        phase = .tentative  // before the part starts: its audio is lead-in until confirmed
        startFirstPart(at: t)
    }

    /// Starts a tentative part from `t` while the vad's possible speech awaits its outcome
    /// and nothing else is being decoded: at the hint itself, and when an utterance ends
    /// with the hint still undecided (noise that keeps the weak evidence up through the
    /// pause, announced as the speech ended), from shortly before then, as the next onset
    /// may already have begun (`Tuning.weakLookback`).
    func speculate(from t: Double) {
        guard speculates && possibleSpeech && !open && !tentative else { return }
        startTentatively(at: t)
    }


    /// The vad confirmed the onset: the tentative part goes on as the new utterance's first
    /// part, fed from the hint's lead-in (the onset itself may lie later in a long run of
    /// weak evidence; starting again there would cost a discarded part's closing pass).
    func confirm(at t: Double) {
        openUtterance(at: t)
        if seeding { seedTarget = held.count + seedFrames }  // the look-ahead counts from the confirmation
        else if livePass && seedFrames > 0 { measureSinceOnset(t) }
        reportPartialIfDue()
    }

    /// Undoes a tentative part: its decoding and its cepstral-mean measurements.
    func abandon() {
        phase = .idle
        decoder.endUtterance()
        decoder.restoreCepstralMean(meanBeforeTentative)
        seeding = false
        held.removeAll(keepingCapacity: true)
        previewed = 0
        batch.removeAll(keepingCapacity: true)
        PocketSphinxDecoder.releaseFreeMemory()
    }
}
