import AudioGraphCore
import CPocketSphinx
import Foundation

extension PocketSphinxDecoder {
    /// At most this many n-best entries are visited (many differ only in fillers).
    static let nbestVisits = 150
    /// Language-model weights (times PocketSphinx's own) the lattice is read again with: a
    /// word that stays when the language model counts for less, or for more, is more often
    /// right (see `ConfidenceModel`).
    static let lighterLanguageModel: [Float] = [0, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.7]
    static let heavierLanguageModel: [Float] = [1.4, 2, 3, 5, 8]

    /// One word of a reading: the dictionary entry (with variant), its frames and scores.
    struct Segment {
        var word: String
        var first: Int32
        var last: Int32
        var ascr: Int32 = 0
        var lscr: Int32 = 0
        var lback: Int32 = 0
    }

    /// The final result after `endUtterance`; times are offset by `start` seconds. Its
    /// confidences take a typical voicing until the whole utterance's is known
    /// (`ConfidenceModel.voiced`).
    func result(utterance: Int, start: Double, end: Double, alternatives: Int) -> RecognitionResult {
        var score: Int32 = 0
        let text = ps_get_hyp(decoder, &score).map { Self.clean(String(cString: $0)) } ?? ""
        _ = ps_get_prob(decoder)  // computes the lattice's posteriors
        let best = segments(ps_seg_iter(decoder))
        let readings = nbest(best: (text, score), count: alternatives)

        // This PocketSphinx numbers segment frames over the whole stream (`ps_start_stream`),
        // not from the utterance's start, and with `-remove_silence` leaves dropped frames
        // out. The utterance's first segment (<s>) starts the same few frames into every
        // utterance, as measured on the first one (whose numbers are right): that maps later
        // utterances' frames back onto their own start.
        let lead = best.first?.first ?? 0
        if firstSegmentFrame == nil { firstSegmentFrame = lead }
        let offset = lead - firstSegmentFrame!

        let spoken = best.filter { Self.word($0.word) != nil }
        let posteriors = framePosteriors(spoken, from: lead)
        let lighter = Self.lighterLanguageModel.map { rescored(from: lead, languageWeight: $0) }
        let heavier = Self.heavierLanguageModel.map { rescored(from: lead, languageWeight: $0) }
        let frames = spoken.reduce(0) { $0 + Int($1.last - $1.first + 1) }
        let meanAcoustic = frames > 0 ? logmath_log_to_ln(logmath, spoken.reduce(0) { $0 + $1.ascr }) / Double(frames) : 0
        let heavierAgreement = spoken.map { agreement($0, heavier) }
        var words: [RecognitionResult.Word] = []
        for (i, s) in spoken.enumerated() {
            let n = Int(s.last - s.first + 1)
            let wordStart = start + Double(s.first - offset) / 100, wordEnd = start + Double(s.last - offset + 1) / 100
            let neighbours = [i > 0 ? heavierAgreement[i - 1] : 1, i + 1 < spoken.count ? heavierAgreement[i + 1] : 1]
            let evidence = ConfidenceModel.evidence(.init(
                posterior: posteriors[i],
                lighterAgreement: agreement(s, lighter), heavierAgreement: heavierAgreement[i],
                neighbourHeavierAgreement: neighbours.min()!,
                acousticPerFrame: logmath_log_to_ln(logmath, s.ascr) / Double(n) - meanAcoustic,
                languageModel: logmath_log_to_ln(logmath, s.lscr), backoff: Int(s.lback), frames: n,
                phones: phoneCount(s.word)))
            var w = RecognitionResult.Word(word: Self.word(s.word)!, start: wordStart, end: wordEnd,
                                           confidence: ConfidenceModel.probability(evidence))
            w.evidence = evidence
            words.append(w)
        }
        let alts = readings.prefix(alternatives).map { RecognitionResult.Alternative(text: $0.text, score: Int($0.score)) }
        return RecognitionResult(utterance: utterance, text: text, start: start, end: end,
                                 confidence: RecognitionResult.meanConfidence(words), alternatives: alts, words: words)
    }

    /// The best reading, then up to `count` - 1 distinct n-best readings.
    private func nbest(best: (String, Int32), count: Int) -> [(text: String, score: Int32)] {
        var readings = [best]
        var seen: Set<String> = [best.0]
        var nb = count > 1 ? ps_nbest(decoder) : nil
        var visited = 0
        while let n = nb, readings.count < count, visited < Self.nbestVisits {
            visited += 1
            var s: Int32 = 0
            if let h = ps_nbest_hyp(n, &s) {
                let t = Self.clean(String(cString: h))
                if seen.insert(t).inserted { readings.append((t, s)) }
            }
            nb = ps_nbest_next(n)
        }
        if let n = nb { ps_nbest_free(n) }
        return readings
    }

    /// The segments of a reading, fillers included.
    private func segments(_ iterator: OpaquePointer?) -> [Segment] {
        var out: [Segment] = []
        var seg = iterator
        while let s = seg {
            var sf: Int32 = 0, ef: Int32 = 0, ascr: Int32 = 0, lscr: Int32 = 0, lback: Int32 = 0
            ps_seg_frames(s, &sf, &ef)
            _ = ps_seg_prob(s, &ascr, &lscr, &lback)
            if let w = ps_seg_word(s) {
                out.append(Segment(word: String(cString: w), first: sf, last: ef, ascr: ascr, lscr: lscr, lback: lback))
            }
            seg = ps_seg_next(s)
        }
        return out
    }

    /// The lattice's links with their frames (numbered from the lattice's start), in order.
    private func links(_ dag: OpaquePointer) -> [(link: OpaquePointer, first: Int32, last: Int32)] {
        var out: [(OpaquePointer, Int32, Int32)] = []
        var link = ps_lattice_traverse_edges(dag, nil, nil)
        while let l = link {
            var sf: Int16 = 0
            let ef = Int32(ps_latlink_times(l, &sf))
            out.append((l, Int32(sf), ef))
            link = ps_lattice_traverse_next(dag, nil)
        }
        return out
    }

    /// Per word, the share of the lattice's paths that have the same word at its middle
    /// frame: the sum of the posteriors of the links with that word spanning the frame.
    /// `start` is the reading's first frame (its <s>). All 1 without a lattice (key phrases).
    private func framePosteriors(_ words: [Segment], from start: Int32) -> [Double] {
        guard !words.isEmpty, let dag = ps_get_lattice(decoder) else { return words.map { _ in 1 } }
        let all = links(dag)
        // Segments number frames over the stream, the lattice from its own first frame.
        let offset = start - (all.map(\.first).min() ?? 0)
        let base = words.map { Self.word($0.word) ?? "" }
        let middle = words.map { ($0.first + $0.last) / 2 - offset }
        var sums = [Double](repeating: 0, count: words.count)
        for (l, sf, ef) in all {
            guard let w = ps_latlink_baseword(dag, l) else { continue }
            let word = String(cString: w)
            for i in words.indices where sf <= middle[i] && middle[i] <= ef && base[i] == word {
                sums[i] += logmath_exp(logmath, ps_latlink_prob(dag, l, nil))
            }
        }
        return sums.map { min(1, $0) }
    }

    /// The lattice's best reading with the language model weighted `languageWeight` times
    /// PocketSphinx's weight, frames numbered as the segments' (the reading starts at `start`).
    /// It leaves the lattice's best-path marks on that reading; the posteriors stay.
    private func rescored(from start: Int32, languageWeight: Float) -> [Segment] {
        guard let dag = ps_get_lattice(decoder) else { return [] }
        let lm = ps_get_lm(decoder, Self.mainSearch)
        let lwf = Float(cmd_ln_float_r(config, "-bestpathlw") / max(cmd_ln_float_r(config, "-lw"), 1e-6))
        // The acoustic scale only weighs the forward probabilities, which nothing reads after this.
        var out: [Segment] = []
        var link = ps_lattice_bestpath(dag, lm, lwf * languageWeight, 1.0 / 20)
        while let l = link {
            var sf: Int16 = 0
            let ef = Int32(ps_latlink_times(l, &sf))
            if let w = ps_latlink_word(dag, l) { out.append(Segment(word: String(cString: w), first: Int32(sf), last: ef)) }
            link = ps_latlink_pred(l)
        }
        out.reverse()
        guard let first = out.first?.first else { return [] }
        return out.map { var s = $0; s.first += start - first; s.last += start - first; return s }
    }

    /// The share of `readings` that have the same word over at least half of `s`'s frames.
    private func agreement(_ s: Segment, _ readings: [[Segment]]) -> Double {
        guard !readings.isEmpty, let word = Self.word(s.word) else { return 1 }
        let length = Double(s.last - s.first + 1)
        let agreeing = readings.filter { reading in
            reading.contains { o in
                Self.word(o.word) == word && Double(min(o.last, s.last) - max(o.first, s.first) + 1) >= 0.5 * length
            }
        }
        return Double(agreeing.count) / Double(readings.count)
    }

    /// Phones in the dictionary's pronunciation of `word` (with variant).
    private func phoneCount(_ word: String) -> Int {
        guard let pron = ps_lookup_word(decoder, word) else { return 0 }
        defer { free(pron) }
        return String(cString: pron).split(separator: " ").count
    }
}
