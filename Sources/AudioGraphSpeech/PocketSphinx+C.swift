import AudioGraphCore
import CPocketSphinx
import Foundation

/// The one place that calls PocketSphinx (0.8 / 5prealpha `cmd_ln_t` API).
///
/// A decoder is loaded once per session and kept across utterances, so its cepstral mean
/// normalisation carries over (a fresh decoder per utterance costs 10+ WER points).
/// Not thread-safe: used by one decoding thread at a time.
final class PocketSphinxDecoder {
    /// What to recognise.
    enum Search {
        case languageModel(String)
        case grammar(String)
        case keyphrase(String, threshold: Double)
    }

    /// Histogram pruning: the search keeps at most this much per 10 ms frame.
    struct Limits {
        var hmms: Int
        var wordExits: Int
    }

    private let decoder: OpaquePointer
    private let config: OpaquePointer
    private let logmath: OpaquePointer
    private(set) var inUtterance = false
    /// Whether PocketSphinx's own silence removal is on (see `init`).
    let dropsSilence: Bool
    /// Frame of the first utterance's first segment (see `result`).
    private var firstSegmentFrame: Int32?

    /// Loads the model. Errors carry PocketSphinx's own message (a grammar's line, a file).
    ///
    /// `dropsSilence`: PocketSphinx's own voice-activity detection leaves silent frames out
    /// of decoding (`-remove_silence`). A whole-utterance pass gains from it (corpus WER 24.4 %
    /// vs 25.6 %); a live pass does not (25.3 % vs 25.0 %), and word times are exact only
    /// without it (left-out frames are missing from the decoder's frame count: on the
    /// corpus, words came up to 1.9 s late).
    init(hmm: String, dict: String, search: Search, limits: Limits, dropsSilence: Bool) throws(EngineError) {
        ag_ps_capture_log()
        self.dropsSilence = dropsSilence
        var args = ["audiograph", "-hmm", hmm, "-dict", dict, "-logfn", "/dev/null", "-bestpath", "yes",
                    "-maxhmmpf", String(limits.hmms), "-maxwpf", String(limits.wordExits),
                    "-remove_silence", dropsSilence ? "yes" : "no"]
        switch search {
        case .languageModel(let lm):
            // The second (fwdflat) pass runs when an utterance's part closes, over the whole
            // part: PocketSphinx's word beam 7e-29 and 25-frame successor window took 0.8 s
            // on a 10 s part, past the end-of-speech window. 1e-24 and 15 frames: 0.47 s,
            // corpus WER 24.0 -> 23.4 %, transcribe and session WER unchanged.
            args += ["-lm", lm, "-fwdflatwbeam", "1e-24", "-fwdflatsfwin", "15"]
        case .grammar(let g): args += ["-jsgf", g]
        case .keyphrase(let k, let t): args += ["-keyphrase", k, "-kws_threshold", String(t)]
        }
        var cargs: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) }
        defer { for p in cargs { free(p) } }
        guard let cfg = cargs.withUnsafeMutableBufferPointer({
            cmd_ln_parse_r(nil, ps_args(), Int32(args.count), $0.baseAddress, 1)
        }) else {
            throw EngineError(.model, "PocketSphinx rejected its configuration: \(Self.lastError())")
        }
        ag_ps_capture_log()
        guard let ps = ps_init(cfg) else {
            cmd_ln_free_r(cfg)
            throw EngineError(.model, Self.lastError().isEmpty ? "PocketSphinx failed to load the model" : Self.lastError())
        }
        config = cfg
        decoder = ps
        logmath = ps_get_logmath(ps)
        meter = ag_cmn_meter_new(ps)
    }

    /// Measures each utterance's cepstral mean on a second front end (the decoder's own is
    /// left undisturbed), so a single live pass can normalise like a whole-utterance one.
    private let meter: UnsafeMutablePointer<ag_cmn_meter_t>?

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

    /// What the mean has measured so far (nil without a meter).
    func savedCepstralMean() -> ag_cmn_meter_state_t? { meter?.pointee.state }

    /// Puts the measured mean back as it was when `state` was saved.
    func restoreCepstralMean(_ state: ag_cmn_meter_state_t?) {
        if let meter, let state { meter.pointee.state = state }
    }

    /// Normalises the next frames with the mean measured so far in this utterance.
    func applyCepstralMean() {
        if let meter { ag_cmn_meter_apply(meter, decoder) }
    }

    deinit {
        ag_cmn_meter_free(meter)
        ps_free(decoder)
        cmd_ln_free_r(config)
    }

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
    /// model's first use (pages of the memory-mapped model, first-time tables): on the corpus
    /// in real time its first partial came 0.15-0.3 s later than the audio allowed.
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
    }

    func startUtterance() {
        if ps_start_utt(decoder) >= 0 { inUtterance = true }
    }

    /// Decodes 16 kHz mono 16-bit samples.
    func process(_ samples: UnsafePointer<Int16>, count: Int, wholeUtterance: Bool = false) {
        guard inUtterance else { return }
        _ = ps_process_raw(decoder, samples, count, 0, wholeUtterance ? 1 : 0)
    }

    func endUtterance() {
        guard inUtterance else { return }
        _ = ps_end_utt(decoder)
        inUtterance = false
    }

    /// The current best hypothesis, cleaned ("" when nothing yet).
    func hypothesis() -> String {
        var score: Int32 = 0
        guard let h = ps_get_hyp(decoder, &score) else { return "" }
        return Self.clean(String(cString: h))
    }

    /// The final result after `endUtterance`; times are offset by `start` seconds.
    func result(utterance: Int, start: Double, end: Double, alternatives: Int) -> RecognitionResult {
        var score: Int32 = 0
        let text = ps_get_hyp(decoder, &score).map { Self.clean(String(cString: $0)) } ?? ""
        let confidence = min(1, max(0, logmath_exp(logmath, ps_get_prob(decoder))))
        var words: [RecognitionResult.Word] = []
        var seg = ps_seg_iter(decoder)
        // This PocketSphinx numbers segment frames over the whole stream (`ps_start_stream`),
        // not from the utterance's start, and with `-remove_silence` leaves dropped frames
        // out. The utterance's first segment (<s>) starts the same few frames into every
        // utterance, as measured on the first one (whose numbers are right): that maps later
        // utterances' frames back onto their own start.
        var offset: Int32?
        while let s = seg {
            var sf: Int32 = 0, ef: Int32 = 0
            ps_seg_frames(s, &sf, &ef)
            if offset == nil {
                if firstSegmentFrame == nil { firstSegmentFrame = sf }
                offset = sf - firstSegmentFrame!
            }
            sf -= offset!
            ef -= offset!
            if let w = ps_seg_word(s), let word = Self.word(String(cString: w)) {
                var ascr: Int32 = 0, lscr: Int32 = 0, lback: Int32 = 0
                let p = logmath_exp(logmath, ps_seg_prob(s, &ascr, &lscr, &lback))
                words.append(.init(word: word, start: start + Double(sf) / 100, end: start + Double(ef + 1) / 100,
                                   confidence: min(1, max(0, p))))
            }
            seg = ps_seg_next(s)
        }
        var alts: [RecognitionResult.Alternative] = []
        if alternatives > 0 {
            // The best hypothesis first, then distinct n-best entries.
            var seen: Set<String> = [text]
            alts.append(.init(text: text, score: Int(score)))
            var nb = ps_nbest(decoder)
            var visited = 0
            while let n = nb, alts.count < alternatives, visited < 50 {
                visited += 1
                var s: Int32 = 0
                if let h = ps_nbest_hyp(n, &s) {
                    let t = Self.clean(String(cString: h))
                    if seen.insert(t).inserted { alts.append(.init(text: t, score: Int(s))) }
                }
                nb = ps_nbest_next(n)
            }
            if let n = nb { ps_nbest_free(n) }
        }
        return RecognitionResult(utterance: utterance, text: text, start: start, end: end, confidence: confidence,
                                 alternatives: alts, words: words)
    }

    /// A word without pronunciation variant, or nil for fillers and noise tokens.
    static func word(_ raw: String) -> String? {
        if raw.hasPrefix("<") || raw.hasPrefix("[") || raw.hasPrefix("+") { return nil }
        if let paren = raw.firstIndex(of: "("), raw.hasSuffix(")") { return String(raw[..<paren]) }
        return raw
    }

    /// A hypothesis without fillers, noise tokens or variants.
    static func clean(_ text: String) -> String {
        text.split(separator: " ").compactMap { word(String($0)) }.joined(separator: " ")
    }

    /// Whether every word of `phrase` is in the dictionary; returns the first unknown word.
    func firstUnknownWord(in phrase: String) -> String? {
        for w in phrase.split(separator: " ") {
            guard let pron = ps_lookup_word(decoder, String(w)) else { return String(w) }
            free(pron)
        }
        return nil
    }
}
