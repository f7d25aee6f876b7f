import AudioGraphCore
import AudioGraphDSP
import CPocketSphinx
import CPocketSphinxSupport
import Foundation

/// The one place that calls PocketSphinx (0.8 / 5prealpha `cmd_ln_t` API).
///
/// A decoder is loaded once per session and kept across utterances, so its cepstral mean
/// normalisation carries over (a fresh decoder per utterance costs 10+ WER points).
/// Not thread-safe: used by one decoding thread at a time.
final class PocketSphinxDecoder {
    let decoder: OpaquePointer
    let config: OpaquePointer
    let logmath: OpaquePointer
    /// Whether PocketSphinx's own silence removal is on (see `init`).
    let dropsSilence: Bool
    /// Frame of the first utterance's first segment (see `result`).
    var firstSegmentFrame: Int32?
    /// The vocabulary whose model is interpolated with the language model now (see
    /// `addVocabularyModel`).
    var vocabulary: Vocabulary?
    /// The n-gram model as read (a reference of its own), once a vocabulary's model is
    /// combined with it: the search's model is then the combination, and a larger vocabulary
    /// is combined with this one again, not with the combination.
    var loadedLanguageModel: OpaquePointer?

    /// Loads the model. Errors carry PocketSphinx's own message (a grammar's line, a file).
    ///
    /// `warp`: the front end's inverse-linear frequency warp (1: none; the `warp` parameter).
    ///
    /// `dropsSilence`: PocketSphinx's own voice-activity detection leaves silent frames out
    /// of decoding (`-remove_silence`). A whole-utterance pass gains from it; a live pass
    /// does not, and word times are exact only without it (left-out frames are missing from
    /// the decoder's frame count). Measurements: TUNING.md.
    ///
    /// `preview`: with a language model, also build a second search over the same model and
    /// acoustic front end with these (tighter) limits, for ``preview(_:count:)``.
    /// `preparedLater`: that search is built, and the decoder warmed up, by
    /// ``prepareForSpeech()`` (else the caller warms it up when it wants). With
    /// `searchLater` too, so is the language model's own search (the n-gram model is read
    /// here, so a model that cannot be read still fails the load): a stream that ends with no
    /// speech never builds it, and one with speech builds it as its first utterance opens or
    /// while the decoder waits for audio, whichever comes first.
    init(hmm: String, dict: String, search: Search, limits: Limits, warp: Double = 1, dropsSilence: Bool,
         preview: Limits? = nil, preparedLater: Bool = false, searchLater: Bool = false) throws(EngineError) {
        ag_ps_capture_log()
        self.dropsSilence = dropsSilence
        self.limits = limits
        self.warp = warp
        // No `-logfn`: PocketSphinx would open that file and close the one before it, a global
        // changed without a lock, and two decoders loading at once (a server's sessions)
        // closed one FILE twice and corrupted the heap. The log goes to `ag_ps_capture_log`'s
        // callback, which drops all but errors.
        var args = ["audiograph", "-hmm", hmm, "-dict", dict, "-bestpath", "yes",
                    "-maxhmmpf", String(limits.hmms), "-maxwpf", String(limits.wordExits), "-topn", String(limits.gaussians),
                    "-remove_silence", dropsSilence ? "yes" : "no"]
        if warp != 1 { args += ["-warp_type", "inverse_linear", "-warp_params", String(warp)] }
        switch search {
        case .languageModel:
            // The second (fwdflat) pass runs when an utterance's part closes, over the whole
            // part: a narrower word beam and successor window than PocketSphinx's keep it
            // inside the end-of-speech window on long parts (TUNING.md). The n-gram model is
            // read beside the rest of the load (below), not through `-lm`.
            args += ["-fwdflatwbeam", "1e-24", "-fwdflatsfwin", "15", "-fwdflat", limits.secondPass ? "yes" : "no"]
        case .grammar(let g): args += ["-jsgf", g]
        case .keyphrase(let k, let t): args += ["-keyphrase", k, "-kws_threshold", String(t)]
        }
        args = tunedArguments(args)
        var cargs: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) }
        defer { for p in cargs { free(p) } }
        guard let cfg = cargs.withUnsafeMutableBufferPointer({
            cmd_ln_parse_r(nil, ps_args(), Int32(args.count), $0.baseAddress, 1)
        }) else {
            throw EngineError(.model, "PocketSphinx rejected its configuration: \(Self.lastError())")
        }
        ag_ps_capture_log()
        var fatal: Int32 = 0, lmFailed: Int32 = 0
        var lmLogmath: OpaquePointer?
        var deferred: OpaquePointer?
        let made: OpaquePointer?
        if case .languageModel(let lm) = search {
            made = preparedLater && searchLater
                ? ag_ps_init_lm_guarded(cfg, lm, &fatal, &lmFailed, &lmLogmath, &deferred)
                : ag_ps_init_lm_guarded(cfg, lm, &fatal, &lmFailed, &lmLogmath, nil)
        } else {
            made = ag_ps_init_guarded(cfg, &fatal)
        }
        guard let ps = made else {
            // After a fatal error the half-built decoder may still hold the configuration.
            if fatal == 0 { cmd_ln_free_r(cfg) }
            let reason = Self.lastError()
            var error = EngineError(.model, reason.isEmpty ? "PocketSphinx failed to load the model" : reason)
            // Name the model part when PocketSphinx's words name its file.
            if lmFailed != 0 {
                error.parameter = "lm"
            } else if reason.contains(hmm) {
                error.parameter = "hmm"
            } else if reason.contains(dict) {
                error.parameter = "dict"
            }
            throw error
        }
        languageModelLogmath = lmLogmath
        pendingLanguageModel = deferred
        config = cfg
        decoder = ps
        logmath = ps_get_logmath(ps)
        meter = ag_cmn_meter_new(ps)
        hasPreview = false
        awaitsPreparation = preparedLater
        if case .languageModel = search, let preview {
            if preparedLater {
                pendingPreview = preview
            } else if let model = Self.languageModel(of: ps) {
                hasPreview = Self.addPreviewSearch(ps, cfg, over: model, preview, restoring: limits)
            }
        }
    }

    let limits: Limits
    /// The front end's frequency warp it was made with (1: none).
    let warp: Double
    /// Whether ``prepareForSpeech()`` has work to do (a decoder made `preparedLater`).
    var awaitsPreparation: Bool
    /// The n-gram model read and not yet searched (a decoder made `searchLater`).
    var pendingLanguageModel: OpaquePointer?
    /// Why the deferred search could not be built; the decoder decodes nothing then.
    var searchFailure: EngineError?
    /// PocketSphinx met a fatal error building it: the decoder is not to be freed.
    var brokenByFatalError = false
    /// The preview search's limits while it waits to be built.
    var pendingPreview: Limits?
    /// The n-gram model (a reference of its own) while its search is set aside for the
    /// preview's: ``attachMainSearch()`` builds the search again.
    var setAsideModel: OpaquePointer?

    static let mainSearch = "_default"

    /// Whether ``preview(_:count:)`` has a search of its own to run.
    var hasPreview: Bool

    /// Frees the preview search (about 17 MB): only a session's first utterance uses it.
    /// A decoder kept for another stream then previews no more; its results are the same
    /// (the preview only brings the first partial result sooner).
    func dropPreview() {
        guard hasPreview, phase != .previewing else { return }
        hasPreview = false
        _ = ps_unset_search(decoder, Self.previewSearch)
        // Hand the pages back now: malloc keeps them for the thread that built the search
        // (the loading thread, with a vocabulary), where nothing may reuse them.
        Self.releaseFreeMemory()
        attachMainSearch()
    }

    /// Where the decoder is. `startUtterance` only opens an utterance; PocketSphinx's own
    /// begins with the first `process` (or `endUtterance`), so a preview may run in between.
    private enum Phase { case idle, opened, previewing, decoding }
    private var phase = Phase.idle
    /// Whether an utterance is open (begun or not).
    var inUtterance: Bool { phase != .idle }
    /// Whether the preview search has an utterance open.
    var isPreviewing: Bool { phase == .previewing }

    /// Measures each utterance's cepstral mean on a second front end (the decoder's own is
    /// left undisturbed), so a single live pass can normalise like a whole-utterance one.
    let meter: OpaquePointer?

    /// The log table the n-gram model was read with, which it uses without owning
    /// (`ag_ps_init_lm_guarded`): freed after the decoder.
    private let languageModelLogmath: OpaquePointer?

    deinit {
        // After a fatal error PocketSphinx's state is not to be trusted: leaked, as a failed load's is.
        guard !brokenByFatalError else { return }
        ag_cmn_meter_free(meter)
        if let pendingLanguageModel { _ = ngram_model_free(pendingLanguageModel) }
        if let setAsideModel { _ = ngram_model_free(setAsideModel) }
        if let loadedLanguageModel { _ = ngram_model_free(loadedLanguageModel) }
        ps_free(decoder)
        if let languageModelLogmath { logmath_free(languageModelLogmath) }
        cmd_ln_free_r(config)
    }

    /// Sends PocketSphinx's log nowhere (until a load captures it again).
    static func silenceLogging() { err_set_logfp(nil) }

    /// PocketSphinx's last error message, cleaned of its source-location prefix.
    static func lastError() -> String {
        // "ERROR: \"jsgf_parser.y\", line 155: syntax error at line 3 ..." -> "syntax error at line 3 ..."
        String(cString: ag_ps_last_error()).components(separatedBy: " | ").map { message in
            var m = Substring(message)
            if let colon = m.range(of: "\", line "), let end = m[colon.upperBound...].firstIndex(of: ":") {
                m = m[m.index(after: end)...]
            }
            return m.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }.joined(separator: "; ")
    }

    /// Decodes half a second of faint noise, so the first utterance does not pay for the
    /// model's first use (pages of the memory-mapped model, first-time tables), which delays
    /// its first partial.
    /// The stream then starts again, so the session starts from the same state as without
    /// (noise estimate, frame numbers).
    func warmUp() {
        var noise = [Int16](repeating: 0, count: 8000)
        var x: UInt32 = 1
        for i in noise.indices {
            x = x &* 1_664_525 &+ 1_013_904_223
            noise[i] = Int16(truncatingIfNeeded: Int32(x >> 24) - 128)
        }
        startUtterance()
        noise.withUnsafeBufferPointer { process($0.baseAddress!, count: $0.count) }
        endUtterance()
        ps_start_stream(decoder)
        loadedMean = liveCepstralMean()
    }

    /// The live cepstral mean as loaded (after `warmUp`), for `startOver`.
    private var loadedMean: ag_cmn_snapshot_t?

    /// Puts the decoder back in the state `warmUp` left it in, for another stream: no
    /// utterance open, the main search current (where it is built), frames numbered from 0,
    /// the cepstral mean as loaded, the side meter empty. A stream decoded after `startOver`
    /// gets the same results as with a fresh load (tested), except through the utterance
    /// decoder with a live pass, whose scores can differ in their last digits (alternatives'
    /// scores by up to about 1 %, word confidences by 0.001, on both corpora). The cause is in
    /// PocketSphinx and not pinned down. It shows when an utterance's audio comes in blocks
    /// (as the engine feeds it), not when it comes in one call, after any earlier utterance on
    /// the decoder: flite's "go forward ten meters" in blocks of 1,024 samples, every path of
    /// the first utterance 20-55 points apart (through the utterance decoder, its words and
    /// their confidences equal to 4 decimals); the utterances after it identical. The live
    /// cepstral mean is the same before and after (so are the features); replaying the
    /// warm-up's noise does not bring it back; the preview, the side meter's front end (made
    /// anew) and decoding in parts are not it.
    func startOver() {
        if phase == .previewing || phase == .decoding { _ = ps_end_utt(decoder) }
        phase = .idle
        selectMainSearch()
        ps_start_stream(decoder)
        if let loadedMean { restoreLiveCepstralMean(loadedMean) }
        if let meter { ag_cmn_meter_restart(meter) }
        firstSegmentFrame = nil
    }

    /// Opens an utterance; PocketSphinx's own begins with the first `process`.
    func startUtterance() {
        prepareForSpeech()
        if phase == .idle { phase = .opened }
    }

    /// Begins PocketSphinx's utterance unless it has begun, ending a preview first; whether
    /// it is decoding (an utterance that fails to begin is not open).
    private func begin() -> Bool {
        endPreview()
        attachMainSearch()
        if phase == .opened { phase = ps_start_utt(decoder) >= 0 ? .decoding : .idle }
        return phase == .decoding
    }

    /// Decodes 16 kHz mono 16-bit samples.
    func process(_ samples: UnsafePointer<Int16>, count: Int, wholeUtterance: Bool = false) {
        guard begin() else { return }
        _ = ps_process_raw(decoder, samples, count, 0, wholeUtterance ? 1 : 0)
    }

    func endUtterance() {
        guard begin() else { return }
        _ = ps_end_utt(decoder)
        phase = .idle
    }

    /// Decodes samples with the cheaper preview search, in an utterance opened but not yet
    /// begun (its audio held back). Its hypothesis stands in for the utterance's until the
    /// first `process`, which discards the preview and decodes from the start.
    func preview(_ samples: UnsafePointer<Int16>, count: Int) {
        if phase == .opened && hasPreview && ps_set_search(decoder, Self.previewSearch) >= 0 {
            if ps_start_utt(decoder) >= 0 { phase = .previewing } else { selectMainSearch() }
        }
        guard phase == .previewing else { return }
        _ = ps_process_raw(decoder, samples, count, 0, 0)
    }

    /// Ends a preview, if one runs, and numbers frames from the stream's start again, as if
    /// it had not run. Call it before setting the cepstral mean the utterance is to start
    /// from: ending an utterance updates PocketSphinx's own.
    func endPreview() {
        guard phase == .previewing else { return }
        _ = ps_end_utt(decoder)
        selectMainSearch()
        ps_start_stream(decoder)
        phase = .opened
    }

    /// The current best hypothesis, cleaned ("" when nothing yet): the preview's while one runs.
    func hypothesis() -> String {
        guard phase == .decoding || phase == .previewing else { return "" }
        var score: Int32 = 0
        guard let h = ps_get_hyp(decoder, &score) else { return "" }
        return Self.clean(String(cString: h))
    }

    /// A word without pronunciation variant, or nil for fillers, noise tokens and a grammar's
    /// empty arcs (which PocketSphinx names "(NULL)").
    static func word(_ raw: String) -> String? {
        if raw.isEmpty || raw.hasPrefix("<") || raw.hasPrefix("[") || raw.hasPrefix("+") || raw.hasPrefix("(") { return nil }
        if let paren = raw.firstIndex(of: "("), raw.hasSuffix(")") { return String(raw[..<paren]) }
        return raw
    }

    /// A hypothesis without fillers, noise tokens or variants.
    static func clean(_ text: String) -> String {
        text.split(separator: " ").compactMap { word(String($0)) }.joined(separator: " ")
    }

    /// Whether the dictionary has `word`.
    func knows(_ word: String) -> Bool {
        guard let pron = ps_lookup_word(decoder, word) else { return false }
        free(pron)
        return true
    }

    /// The first word of `phrase` the dictionary lacks, if any.
    func firstUnknownWord(in phrase: String) -> String? {
        phrase.split(separator: " ").map(String.init).first { !knows($0) }
    }
}
