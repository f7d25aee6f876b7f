import AudioGraphCore
import CPocketSphinx
import Foundation
import Synchronization

/// `recognizer`: recognises speech with PocketSphinx and reports partial and final results.
///
/// The render thread only copies 16 kHz mono blocks into a bounded queue; a decoding
/// thread of the node's own feeds PocketSphinx. With file input a full queue makes the
/// graph wait (nothing lost); with live input blocks are dropped and counted. Results reach
/// the event stream through `takeEvents` on the delivery thread.
///
///     render thread ──► BlockQueue (64 blocks) ──► decoding thread ──► results ──► delivery thread
public final class Recognizer: AudioNode {
    public static let descriptor = NodeDescriptor(
        type: "recognizer",
        summary: "Recognises speech (PocketSphinx): partial and final results with alternatives, word times, confidence.",
        role: .sink,
        parameters: [
            ParameterSpec("hmm", .path, default: .string(SpeechModel.defaultHMM), help: "acoustic model directory"),
            ParameterSpec("lm", .path, default: .string(SpeechModel.defaultLM), help: "language model (dictation)"),
            ParameterSpec("dict", .path, default: .string(SpeechModel.defaultDict), help: "pronunciation dictionary"),
            ParameterSpec("grammar", .path, help: "JSGF grammar file (commands); replaces the language model"),
            ParameterSpec("keyphrase", .string, help: "phrase to spot (wake word); replaces the language model"),
            ParameterSpec("threshold", .number(1e-100...1), default: 1e-20, help: "keyphrase detection threshold"),
            ParameterSpec("partials", .number(0...10), default: 0.25, unit: "s",
                          help: "at most one partial result per this much audio (0: none)"),
            ParameterSpec("alternatives", .integer(0...20), default: 3, help: "n-best alternatives in final results"),
            ParameterSpec("final", .choice(["utterance", "live"]), default: "utterance",
                          help: "utterance: decode each utterance again, whole, for its final result (cepstral mean over the utterance, as the model asks: fewest errors, final 1-3 s after a long utterance); live: one pass, its result at once (lowest latency and cost)"),
            ParameterSpec("cmn-lookahead", .number(0...3), default: 0.1, unit: "s",
                          help: "with final=live: audio of the session's first utterance held back to measure its cepstral mean before decoding starts (the mean then follows the speech and carries over to later utterances); 0: PocketSphinx's running mean"),
            ParameterSpec("max-hmms", .integer(100...100000), default: 8000,
                          help: "most HMMs the search keeps active per frame (PocketSphinx -maxhmmpf; its default 30000 costs 27 % more CPU for the same corpus WER)"),
            ParameterSpec("max-word-exits", .integer(1...1000), default: 10,
                          help: "most distinct words that may end per frame (PocketSphinx -maxwpf)"),
            ParameterSpec("continuous", .bool, default: true,
                          help: "keep recognising utterance after utterance (false: end the run after the first)"),
        ],
        make: { p throws(GraphError) in try Recognizer(p) })

    let hmm: String, dict: String
    let search: PocketSphinxDecoder.Search
    let partialFrames: Int
    let alternatives: Int
    let continuous: Bool
    /// Search limits per frame (active HMMs, word exits).
    let limits: PocketSphinxDecoder.Limits
    let finalPass: FinalPass
    /// Seconds of the first utterance held back to measure its cepstral mean (single pass).
    let cmnLookahead: Double

    /// Where final results come from.
    enum FinalPass: String { case utterance, live }
    private var decoder: PocketSphinxDecoder?
    private var queue: BlockQueue?
    private var eventsReady = Wakeup()
    private var thread: Thread?
    private let done = Atomic<Bool>(false)
    private let cancelled = Atomic<Bool>(false)
    private let exited = Atomic<Bool>(true)
    private let results = Locked<[EngineEvent]>([])
    private var nodeId = "recognizer"
    private var segmentation = Segmentation.whole

    init(_ p: ResolvedParameters) throws(GraphError) {
        nodeId = p.nodeId
        hmm = p.string("hmm") ?? SpeechModel.defaultHMM
        dict = p.string("dict") ?? SpeechModel.defaultDict
        let grammar = p.string("grammar"), keyphrase = p.string("keyphrase")
        if grammar != nil && keyphrase != nil {
            throw p.error("keyphrase", "give either a grammar or a keyphrase, not both")
        }
        func mustExist(_ path: String, _ param: String, directory: Bool = false) throws(GraphError) {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue == directory else {
                throw p.error(param, "\(path): no such \(directory ? "model directory" : "file")",
                              suggestion: param == "grammar" ? nil : "install Debian's pocketsphinx-en-us or point \(param) at a model")
            }
        }
        try mustExist(hmm, "hmm", directory: true)
        try mustExist(hmm + "/mdef", "hmm")
        try mustExist(dict, "dict")
        if let grammar {
            try mustExist(grammar, "grammar")
            search = .grammar(grammar)
        } else if let keyphrase {
            guard !keyphrase.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw p.error("keyphrase", "expected a phrase, got an empty string")
            }
            search = .keyphrase(keyphrase.lowercased(), threshold: p.number("threshold", 1e-20))
        } else {
            let lm = p.string("lm") ?? SpeechModel.defaultLM
            try mustExist(lm, "lm")
            search = .languageModel(lm)
        }
        partialFrames = Int(p.number("partials", 0.25) * 16000)
        alternatives = p.integer("alternatives", 3)
        continuous = p.bool("continuous", true)
        limits = .init(hmms: p.integer("max-hmms", 8000), wordExits: p.integer("max-word-exits", 10))
        finalPass = FinalPass(rawValue: p.string("final") ?? "utterance") ?? .utterance
        cmnLookahead = p.number("cmn-lookahead", 0.1)
    }

    /// PocketSphinx's models are 16 kHz mono; the engine converts anything else.
    public func acceptedFormat(forInput bus: Int, offered: StreamFormat, all: [StreamFormat]) -> StreamFormat {
        StreamFormat(sampleRate: 16000, channelCount: 1)
    }

    /// Loads the model (before the run announces `listening`).
    public func open() throws(EngineError) {
        guard decoder == nil else { return }
        do throws(EngineError) {
            let d = try PocketSphinxDecoder(hmm: hmm, dict: dict, search: search, limits: limits)
            if case .keyphrase(let phrase, _) = search, let word = d.firstUnknownWord(in: phrase) {
                throw EngineError(.model, "\"\(word)\" is not in the dictionary \(dict)",
                                  suggestion: "spell the keyphrase with dictionary words")
            }
            decoder = d
        } catch {
            var e = error
            e.parameter = switch search {
            case .grammar: "grammar"
            case .keyphrase: "keyphrase"
            case .languageModel: "lm"
            }
            throw e
        }
    }

    public func prepare(_ context: PrepareContext) throws(EngineError) {
        segmentation = context.upstreamMarkers.contains(.utteranceEnd) ? .endOfSpeech
            : context.upstreamMarkers.contains(.speechStart) ? .speech : .whole
        eventsReady = context.eventsReady
        queue = BlockQueue(format: StreamFormat(sampleRate: 16000, channelCount: 1), maxFrames: context.maxFrames,
                         blockCount: 256, policy: context.isLive ? .drop : .block)
        startThread()
    }

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        let input = io.inputs[0]
        if input.frameLength > 0 || input.markerCount > 0 { queue.unsafelyUnwrapped.write(input) }
        if !continuous {
            // Single utterance: the session ends with the first utterance's end.
            let closing: StreamMarker.Kind = segmentation == .endOfSpeech ? .utteranceEnd : .speechEnd
            for m in input.markers where m.kind == closing { io.requestEnd(.endOfSpeech) }
        }
        return .ok
    }

    public func finish(_ reason: EndReason) throws(EngineError) {
        if reason == .cancelled || reason == .error {
            cancelled.store(true, ordering: .relaxed)
            queue?.abandoned.store(true, ordering: .relaxed)
        }
        done.store(true, ordering: .releasing)
        while !exited.load(ordering: .acquiring) { usleep(1000) }
        if let q = queue, q.lostBlocks.load(ordering: .relaxed) > 0 {
            results.withLock {
                $0.append(.overrun(node: nodeId, lost: q.lostBlocks.load(ordering: .relaxed)))
            }
        }
    }

    public func reset() {
        done.store(false, ordering: .relaxed)
        cancelled.store(false, ordering: .relaxed)
        startThread()
    }

    public func takeEvents(nodeId: String) -> [EngineEvent] {
        results.withLock { r in
            defer { r.removeAll(keepingCapacity: true) }
            return r
        }
    }

    private func startThread() {
        guard let queue, let decoder else { return }
        exited.store(false, ordering: .relaxed)
        let box = UncheckedSendable((self, queue, decoder))
        let t = Thread {
            let (node, queue, decoder) = box.value
            node.decode(queue, decoder)
            node.exited.store(true, ordering: .releasing)
        }
        t.name = "audiograph.recognizer"
        thread = t
        t.start()
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

    /// How much of the previous utterances' cepstral mean a new utterance starts from
    /// (10 ms frames), so the mean follows a change of microphone or room within minutes.
    static let carriedMeanFrames = 3000
    /// Audio kept before an onset so the first words are decoded from their start.
    static let prerollSeconds = 1.0
    /// Audio fed from before the onset: soft onsets start before the VAD's t, and the decoder
    /// wants some silence first (0.3 s: 26.9 % -> 24.7 % WER on the corpus, no gain beyond).
    static let leadIn = 0.3

    /// The decoding thread.
    private func decode(_ queue: BlockQueue, _ decoder: PocketSphinxDecoder) {
        let capacity = queue.blocks[0].frameCapacity
        let scratch = UnsafeMutablePointer<Int16>.allocate(capacity: max(capacity, Int(Self.prerollSeconds * 16000)))
        defer { scratch.deallocate() }
        let prerollLength = Int(Self.prerollSeconds * 16000)
        var preroll = [Int16](repeating: 0, count: prerollLength)
        var next: Int64 = 0             // absolute index of the next sample to arrive
        var utterance = 0
        var start = 0.0, feedStart = 0.0
        var sinceLastPartial = 0
        var lastPartial = ""
        let id = nodeId
        // With `final: utterance`, the utterance's audio is kept and decoded again, whole,
        // when it ends; the live pass then only serves partial results (and is skipped
        // when there are none).
        let wholePass = finalPass == .utterance
        let livePass = !wholePass || partialFrames > 0
        var batch: [Int16] = []
        // Single pass (final=live): the model wants each utterance normalised by its own
        // cepstral mean, which a live pass cannot know in advance. Hold the utterance's first
        // `seedFrames` (after the lead-in), measure their mean on a side front end, start the
        // decoder's normalisation there, decode what was held, and keep updating the mean
        // as the utterance goes on. Corpus WER: 48 % with PocketSphinx's running mean, 28.6 %
        // this way (the same for 0.1 to 1 s of look-ahead: following the mean does the work),
        // 24.4 % with a second whole-utterance pass.
        let seedFrames = wholePass ? 0 : Int(cmnLookahead * 16000)

        var seeding = false
        var seedTarget = 0
        var held: [Int16] = []
        held.reserveCapacity(Int((Self.prerollSeconds + cmnLookahead) * 16000) + capacity)

        func releaseHeld() {
            seeding = false
            decoder.applyCepstralMean()
            held.withUnsafeBufferPointer { h in
                var k = 0
                while k < h.count {
                    let n = min(capacity, h.count - k)
                    decoder.process(h.baseAddress! + k, count: n)
                    k += n
                }
            }
            sinceLastPartial = held.count
            held.removeAll(keepingCapacity: true)
        }

        func begin(at t: Double) {
            utterance += 1
            start = max(0, t)
            decoder.startUtterance()
            // Feed the pre-roll from shortly before the onset.
            let from = max(next - Int64(prerollLength), Int64(((start - Self.leadIn) * 16000).rounded()), 0)
            feedStart = Double(from) / 16000
            // The first utterance holds its look-ahead to measure a mean; later ones start
            // from the mean carried over (30 s of speech worth) and update it as they go: no
            // hold, so their partials come sooner (corpus WER 25.6 -> 25.3 %; 25.6 % with 5 s).
            seeding = seedFrames > 0 && utterance == 1
            if seeding {
                decoder.startCepstralMean()
            } else if seedFrames > 0 {
                decoder.continueCepstralMean(keepingFrames: Self.carriedMeanFrames)
                decoder.applyCepstralMean()
            }
            var k = from
            while k < next {
                let n = Int(min(next - k, Int64(capacity)))
                for i in 0..<n { scratch[i] = preroll[Int((k + Int64(i)) % Int64(prerollLength))] }
                if wholePass { batch.append(contentsOf: UnsafeBufferPointer(start: scratch, count: n)) }
                if seeding {
                    held.append(contentsOf: UnsafeBufferPointer(start: scratch, count: n))
                    decoder.measureCepstralMean(scratch, count: n)
                } else if livePass {
                    decoder.process(scratch, count: n)
                }
                k += Int64(n)
            }
            seedTarget = held.count + seedFrames
            sinceLastPartial = 0
            lastPartial = ""
        }

        func end(at t: Double) {
            if seeding { releaseHeld() }  // shorter than the look-ahead
            if wholePass {
                decoder.endUtterance()  // the live pass, if any, is done
                if !cancelled.load(ordering: .relaxed) && !batch.isEmpty {
                    decoder.startUtterance()
                    batch.withUnsafeBufferPointer { decoder.process($0.baseAddress!, count: $0.count, wholeUtterance: true) }
                }
                batch.removeAll(keepingCapacity: true)
            }
            decoder.endUtterance()
            guard !cancelled.load(ordering: .relaxed) else { return }
            var r = decoder.result(utterance: utterance, start: feedStart, end: t, alternatives: alternatives)
            r.start = start
            results.withLock { $0.append(.final(node: id, result: r)) }
            eventsReady.signal()
            // PocketSphinx frees each utterance's lattice and tables into malloc's per-thread
            // arena, which glibc keeps: hand it back so a long session's memory stays flat.
            ag_release_free_memory()
        }

        func feed(_ x: UnsafeMutablePointer<Float>, _ n: Int) {
            for i in 0..<n {
                let v = Int16(max(-32768, min(32767, (x[i] * 32768).rounded())))
                scratch[i] = v
                preroll[Int((next + Int64(i)) % Int64(prerollLength))] = v
            }
            next += Int64(n)
            guard decoder.inUtterance else { return }
            if wholePass { batch.append(contentsOf: UnsafeBufferPointer(start: scratch, count: n)) }
            guard livePass else { return }
            if seedFrames > 0 { decoder.measureCepstralMean(scratch, count: n) }
            if seeding {
                held.append(contentsOf: UnsafeBufferPointer(start: scratch, count: n))
                guard held.count >= seedTarget else { return }
                releaseHeld()
            } else {
                if seedFrames > 0 { decoder.applyCepstralMean() }  // the mean follows the utterance
                decoder.process(scratch, count: n)
                sinceLastPartial += n
            }
            // Until the first words show, look every 20 ms; then at the `partials` cadence.
            let due = lastPartial.isEmpty ? min(partialFrames, 320) : partialFrames
            if partialFrames > 0 && sinceLastPartial >= due {
                sinceLastPartial = 0
                let h = decoder.hypothesis()
                if h != lastPartial && !h.isEmpty {
                    lastPartial = h
                    let u = utterance
                    results.withLock { $0.append(.partial(node: id, utterance: u, text: h)) }
                    eventsReady.signal()
                }
            }
        }

        while true {
            guard let (index, block) = queue.next() else {
                if done.load(ordering: .acquiring) {
                    if queue.hasData { continue }  // a block landed after next(): take it
                    break
                }
                queue.waitForData(timeout: 0.005)
                continue
            }
            if cancelled.load(ordering: .relaxed) {
                queue.release(index)
                continue
            }
            let n = block.frameLength
            if segmentation == .whole && !decoder.inUtterance && n > 0 { begin(at: block.time) }
            // Split the block at each boundary's decision point.
            var done = 0
            for m in block.markers {
                let at = max(done, min(n, Int(((m.decided - block.time) * 16000).rounded())))
                feed(block.channel(0) + done, at - done)
                done = at
                switch (m.kind, segmentation) {
                case (.speechStart, .speech), (.speechStart, .endOfSpeech):
                    if !decoder.inUtterance { begin(at: m.t) }
                case (.speechEnd, .speech), (.utteranceEnd, .endOfSpeech):
                    if decoder.inUtterance { end(at: m.t) }
                default: break
                }
            }
            feed(block.channel(0) + done, n - done)
            queue.release(index)
        }
        if decoder.inUtterance { end(at: Double(next) / 16000) }
    }
}
