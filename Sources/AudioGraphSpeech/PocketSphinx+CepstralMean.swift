import CPocketSphinxSupport

/// The decoder's side cepstral-mean meter (CPocketSphinxSupport): measured on a front end of
/// its own so a single live pass can normalise an utterance like a whole-utterance one.
extension PocketSphinxDecoder {
    /// Starts measuring a new utterance's cepstral mean.
    func startCepstralMean() { if let meter { ag_cmn_meter_start(meter) } }

    /// Starts a new utterance's mean from the previous utterances' (weighted as `frames`
    /// 10 ms frames at most).
    func continueCepstralMean(keepingFrames frames: Int) {
        if let meter { ag_cmn_meter_continue(meter, frames) }
    }

    /// Adds audio to the measured mean.
    func measureCepstralMean(_ samples: UnsafePointer<Int16>, count: Int) {
        if let meter { ag_cmn_meter_add(meter, samples, count) }
    }

    /// What a cepstral-mean meter has measured (saved and put back whole).
    typealias CepstralMean = ag_cmn_meter_state_t

    /// Hands memory PocketSphinx freed into malloc's arenas back to the system.
    static func releaseFreeMemory() { ag_release_free_memory() }

    /// What the mean has measured so far (nil without a meter).
    func savedCepstralMean() -> CepstralMean? { meter.map { ag_cmn_meter_get_state($0) } }

    /// Puts the measured mean back as it was when `state` was saved.
    func restoreCepstralMean(_ state: CepstralMean?) {
        if let meter, let state { ag_cmn_meter_set_state(meter, state) }
    }

    /// Normalises the next frames with the mean measured so far in this utterance.
    func applyCepstralMean() {
        if let meter { ag_cmn_meter_apply(meter, decoder) }
    }

    /// The search's own live cepstral mean as it stands (its mean, sums and frame count): as
    /// loaded (`warmUp`, put back by `startOver`), or before audio it must not learn from.
    func liveCepstralMean() -> ag_cmn_snapshot_t { ag_cmn_snapshot(decoder) }

    /// Puts the search's live cepstral mean back as `liveCepstralMean` gave it: the frames
    /// processed since are forgotten by the mean (they were normalised, not learnt from).
    func restoreLiveCepstralMean(_ mean: ag_cmn_snapshot_t) {
        var mean = mean
        ag_cmn_restore(decoder, &mean)
    }
}
