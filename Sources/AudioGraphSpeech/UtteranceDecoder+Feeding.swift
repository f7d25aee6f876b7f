import AudioGraphCore
import Foundation

/// Feeding the decoder: the session's first utterance held until its cepstral mean is
/// measured (and previewed meanwhile), then every part decoded with the mean following it.
extension UtteranceDecoder {
    /// Takes `n` samples of float audio: into the pre-roll, and to the decoder while an
    /// utterance's part is open.
    func feed(_ x: UnsafeMutablePointer<Float>, _ n: Int) {
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
        voicing?.append(scratch, count: n)
        next += Int64(n)
        guard decoder.inUtterance else { return }  // an open utterance's part, or a tentative one
        let first = next - Int64(n)
        guard case .closing(let left) = phase else { return consume(scratch, n, from: first) }
        // Speech the vad may be starting keeps the part open until it decides (by the hint's
        // `resolvesBy` at most): a closed part would have taken the onset's first sounds.
        let keep = max(left, possibleSpeech ? Int(clamping: max(0, possibleUntil - first)) : 0)
        let m = min(n, keep)
        consume(scratch, m, from: first)
        if m < keep { phase = .closing(samplesLeft: max(0, left - m)); return }
        let end = first + Int64(m)  // the part ends exactly after its trailing silence
        closePart(at: Double(end) / 16000, endingAt: end)
    }

    /// Digital silence (exact zeros: a file's padding, a muted input) gives the decoder's
    /// front end log energies of minus infinity, which it handles badly once its own silence
    /// removal is off, as for a live final pass ("go forward" after zeros came out "go for"):
    /// such samples become a faint, fixed pseudo-random +-1 (real input, never exactly zero
    /// for long, is untouched). The whole-utterance pass keeps PocketSphinx's silence removal
    /// and its zeros (better there: TUNING.md).
    static func faintNoise(_ index: Int64) -> Int16 {
        (UInt64(bitPattern: index) &* 0x9E37_79B9_7F4A_7C15) >> 63 == 0 ? 1 : -1
    }

    /// Decodes the held look-ahead with the mean measured over it, then what the preview
    /// held past it as the utterance goes on.
    func releaseHeld() {
        seeding = false
        decoder.endPreview()  // before the mean is set: ending an utterance moves PocketSphinx's own
        decoder.dropPreview()  // only a session's first utterance previews its first words
        // The hold ends at the look-ahead's end, or past it where the preview stopped (a point
        // of the stream, whatever the blocks); the mean takes in all of it.
        let measured = min(held.count, max(seedTarget + Tuning.meanStep, previewed))
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
    /// begins every word may start, so the full search runs slower than real time there and
    /// that utterance's first partial would come late. So a search limited to fewer HMMs decodes the held audio first, with the same mean,
    /// in a fraction of that time, and goes on with the audio that follows until it finds
    /// words (at most `previewReach` on), holding it too. Its first words are reported at
    /// once and stand until the full search, decoding everything held from the start, has
    /// its own. Returns whether the hold goes on.
    ///
    /// The preview goes in 20 ms steps counted from the held audio's start, and stops after
    /// the step that shows words or at its reach: where it stops leaves a trace in the
    /// acoustic model's state (its Gaussian selection follows the frames before), so it must
    /// not depend on how the audio was cut into blocks.
    func previewsFirstWords() -> Bool {
        guard decoder.hasPreview && settings.partialFrames > 0 && lastPartial.isEmpty else { return false }
        let limit = seedTarget + Tuning.previewReach, step = Tuning.firstWordsStep
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


    /// Decodes samples of the current part and reports a partial result when one is due.
    func consume(_ samples: UnsafePointer<Int16>, _ n: Int, from first: Int64) {
        if wholePass { batch.append(contentsOf: UnsafeBufferPointer(start: samples, count: n)) }
        guard livePass else { return }
        if seeding {
            // The look-ahead is measured to its exact end (a block's end is no boundary: live
            // blocks vary); audio held past it, while the preview looks for words, is
            // measured as it is decoded after the release.
            let measuring = tentative ? n : max(0, min(n, seedTarget - held.count))
            decoder.measureCepstralMean(samples, count: measuring)
            held.append(contentsOf: UnsafeBufferPointer(start: samples, count: n))
            guard held.count >= seedTarget + Tuning.meanStep && !tentative, !previewsFirstWords() else { return }
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
    func decodeFollowingTheMean(_ samples: UnsafePointer<Int16>, _ n: Int, from first: Int64) {
        // A tentative part's audio is lead-in until confirmed: the carried-over mean does not
        // take it in, as for a part started at the confirmation.
        let measures = seedFrames > 0 && !tentative
        var k = 0
        while k < n {
            let position = first + Int64(k)
            var step = min(n - k, Tuning.meanStep - Int(position % Int64(Tuning.meanStep)))
            if awaitingFirstWords { step = min(step, Tuning.firstWordsStep) }
            if measures { decoder.measureCepstralMean(samples + k, count: step) }
            decoder.process(samples + k, count: step)
            sinceLastPartial += step
            k += step
            if seedFrames > 0 && (first + Int64(k)) % Int64(Tuning.meanStep) == 0 { decoder.applyCepstralMean() }
            reportPartialIfDue()
        }
    }

    /// Takes the audio from the onset at `t` up to now into the carried-over mean: what the
    /// mean measures then depends on where speech began, not on when the vad was sure of it.
    func measureSinceOnset(_ t: Double) {
        replayPreroll(from: max(Int64((t * 16000).rounded()), feedFrom)) { n in decoder.measureCepstralMean(scratch, count: n) }
    }

    /// The pre-roll from absolute sample `first` (or its oldest) up to now, into `scratch` a
    /// block at a time, each handed to `body` with its length.
    func replayPreroll(from first: Int64, _ body: (Int) -> Void) {
        var k = max(first, next - Int64(preroll.count))
        while k < next {
            let n = Int(min(next - k, Int64(capacity)))
            for i in 0..<n { scratch[i] = preroll[Int((k + Int64(i)) % Int64(preroll.count))] }
            body(n)
            k += Int64(n)
        }
    }
}
