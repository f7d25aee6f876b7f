import AudioGraphCore
import Foundation
import Synchronization

/// `speech-synth`: speaks text with flite, the vocalizer of an assistant graph. Text comes
/// from the `text` parameter (at start), from code (``speak(_:)``), or as the `reply` to a
/// recognizer's final results. Between texts it plays silence, so a live graph keeps its
/// clock. Reports `speak-start` and `speak-end` in stream order with everything else.
///
/// Synthesis runs on a worker thread (``SpeechWorker``); the render thread only copies
/// samples out of a ring. With file input the graph waits for the worker (nothing is cut);
/// with live input it plays silence until the text is ready.
public final class SpeechSynth: AudioNode, @unchecked Sendable {
    public static let descriptor = NodeDescriptor(
        type: "speech-synth",
        summary: "Speaks text (flite): at start, from code, or in reply to final results; silence in between.",
        role: .source,
        parameters: [
            ParameterSpec("voice", .choice(FliteVoice.names), default: "rms",
                          help: "flite voice: rms, slt, awb, kal16 (16 kHz), kal (8 kHz)"),
            ParameterSpec("rate", .number(0.25...4), default: 1, help: "speaking rate (2: twice as fast)"),
            ParameterSpec("text", .string, help: "spoken once at start; the node then ends, unless `reply` is set"),
            ParameterSpec("reply", .string,
                          help: "spoken after each final result, {text} replaced by what was recognised (e.g. \"you said {text}\"); the node runs until the graph stops"),
            ParameterSpec("reply-to", .string, help: "node id of the recognizer whose finals are answered (default: any)"),
            ParameterSpec("queue", .integer(1...256), default: 16, help: "texts that may wait to be spoken; one more is an error"),
        ],
        make: { p throws(GraphError) in try SpeechSynth(p) })

    /// Node event kinds: `values.0` the text's id, `values.1` 1 if cancelled.
    static let speakStart = NodeEvent.Kind(rawValue: 1100)
    static let speakEnd = NodeEvent.Kind(rawValue: 1101)

    let voiceName: String
    let rate: Double
    let initialText: String?
    let reply: String?
    let replyTo: String?
    let queueCapacity: Int
    private var worker: SpeechWorker?
    private var format = StreamFormat(sampleRate: 16000, channelCount: 1)
    private var isLive = false
    /// Texts by id (read on the delivery thread for the events), and callers awaiting them.
    private let texts = Locked<[Int: String]>([:])
    private let waiters = Locked<[Int: CheckedContinuation<Bool, Never>]>([:])
    private let nextId = Atomic<Int>(0)
    private let played = Atomic<Int>(0)
    /// The last text whose `speak-end` the render thread emitted (texts play in id order).
    private let lastEnded = Atomic<Int>(0)
    /// Texts played to their end so far (their `speak-end` delivered, not cancelled).
    public var spoken: Int { played.load(ordering: .acquiring) }
    /// Render thread: the segment playing and how much of it is left.
    private var current: SpeechWorker.Segment?
    private var left = 0
    private let cancelRequested = Atomic<Bool>(false)
    private var startedInitial = false

    init(_ p: ResolvedParameters) throws(GraphError) {
        voiceName = p.string("voice") ?? "rms"
        rate = p.number("rate", 1)
        initialText = p.string("text")
        reply = p.string("reply")
        replyTo = p.string("reply-to")
        queueCapacity = p.integer("queue", 16)
    }

    public func open() throws(EngineError) {
        guard worker == nil else { return }
        guard let voice = FliteVoice(voiceName) else {
            throw EngineError(.model, "flite has no voice \"\(voiceName)\" (voices: \(FliteVoice.names.joined(separator: ", ")))",
                              parameter: "voice", suggestion: "install Debian's flite")
        }
        format = StreamFormat(sampleRate: Double(voice.sampleRate), channelCount: 1)
        worker = SpeechWorker(voice: voice, rate: rate, capacity: queueCapacity)
    }

    public func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] { [format] }

    public func prepare(_ context: PrepareContext) throws(EngineError) {
        isLive = context.isLive
        worker?.start()
        if let initialText, !startedInitial {
            startedInitial = true
            _ = try? enqueue(initialText)
        }
    }

    // MARK: Speaking from code

    /// Queues `text`; returns its id (the `id` of its `speak-start` and `speak-end`), or nil
    /// when there is nothing to say. Throws when the queue is full. Any thread.
    @discardableResult
    public func enqueue(_ text: String) throws(EngineError) -> Int? {
        let said = FliteVoice.speakable(text)
        guard !said.isEmpty, let worker else { return nil }
        let id = nextId.add(1, ordering: .relaxed).newValue
        texts.withLock { $0[id] = text }
        guard worker.submit(id: id, text: said) else {
            texts.withLock { $0[id] = nil }
            throw EngineError(.internalLimit, "\(worker.capacity) texts already wait to be spoken", parameter: "queue",
                              suggestion: "wait for speak-end, or raise the node's queue")
        }
        return id
    }

    /// Speaks `text` and returns once it has been played (true) or cancelled (false).
    public func speak(_ text: String) async throws -> Bool {
        guard let id = try enqueue(text) else { return true }
        return await withCheckedContinuation { c in
            // Under the waiters' lock: `finished` drops the text before it looks for a waiter.
            let ended = waiters.withLock { w in
                let ended = texts.withLock { $0[id] == nil }
                if !ended { w[id] = c }
                return ended
            }
            if ended { c.resume(returning: true) }
        }
    }

    /// Stops the text playing (its `speak-end` says cancelled) and drops those waiting.
    public func cancelSpeech() {
        for id in worker?.cancelAll() ?? [] { finished(id, played: false) }
        cancelRequested.store(true, ordering: .releasing)
    }

    private func finished(_ id: Int, played: Bool) {
        texts.withLock { $0[id] = nil }
        waiters.withLock { $0.removeValue(forKey: id) }?.resume(returning: played)
    }

    // MARK: Render thread

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        guard let worker else { return .endOfStream }
        let out = io.outputs[0]
        let n = io.requestedFrames
        var filled = 0
        func time(_ frame: Int) -> Double { Double(out.sampleTime + Int64(frame)) / format.sampleRate }
        if cancelRequested.exchange(false, ordering: .acquiring), let c = current {
            _ = worker.ring.discard(frames: left)
            io.emit(NodeEvent(Self.speakEnd, t: time(0), values: (Double(c.id), 1, 0, 0)))
            lastEnded.store(c.id, ordering: .releasing)
            current = nil
        }
        while filled < n {
            if current == nil {
                if worker.segments.count == 0 && worker.pending.load(ordering: .acquiring) > 0 && !isLive && !io.isStopping {
                    // File input: wait for the worker rather than cut the text with silence.
                    usleep(500)
                    continue
                }
                guard let s = worker.segments.pop() else { break }
                current = s
                left = s.frames
                io.emit(NodeEvent(Self.speakStart, t: time(filled), values: (Double(s.id), 0, 0, 0)))
            }
            let got = worker.ring.read(into: out, at: filled, frames: min(n - filled, left))
            filled += got
            left -= got
            if left == 0, let c = current {
                io.emit(NodeEvent(Self.speakEnd, t: time(filled), values: (Double(c.id), 0, 0, 0)))
                lastEnded.store(c.id, ordering: .releasing)
                current = nil
            } else if got == 0 {
                if isLive { break }
                usleep(500)  // a text longer than the ring: the worker is still writing it
            }
        }
        let idle = current == nil && worker.segments.count == 0 && worker.pending.load(ordering: .acquiring) == 0
        if idle && (reply == nil && initialText != nil || io.isStopping) {
            out.frameLength = filled
            return .endOfStream
        }
        // Silence between texts keeps the graph's clock.
        if filled < n { out.channel(0).advanced(by: filled).update(repeating: 0, count: n - filled) }
        out.frameLength = n
        return .ok
    }

    public func finish(_ reason: EndReason) throws(EngineError) {
        worker?.close()
        // Texts whose speak-end was emitted hear of it when it is delivered (texts are kept
        // for their events); the others will not be played: their callers hear so now.
        let last = lastEnded.load(ordering: .acquiring)
        let unplayed = waiters.withLock { w in
            let ids = w.keys.filter { $0 > last }
            return ids.compactMap { w.removeValue(forKey: $0) }
        }
        for c in unplayed { c.resume(returning: false) }
    }

    public func reset() {
        current = nil
        startedInitial = false
        texts.withLock { $0.removeAll() }
    }

    // MARK: Delivery thread

    public func publicEvent(_ raw: NodeEvent, nodeId: String) -> EngineEvent? {
        let id = Int(raw.values.0)
        switch raw.kind {
        case Self.speakStart:
            return .speakStart(node: nodeId, id: id, text: texts.withLock { $0[id] } ?? "", t: raw.t)
        case Self.speakEnd:
            if raw.values.1 == 0 { played.add(1, ordering: .releasing) }
            finished(id, played: raw.values.1 == 0)
            return .speakEnd(node: nodeId, id: id, t: raw.t, cancelled: raw.values.1 != 0)
        default:
            return raw.standardEvent(nodeId: nodeId)
        }
    }

    public var observesEvents: Bool { reply != nil }

    /// Answers a final result with the `reply` template.
    public func observe(_ event: EngineEvent) {
        guard let reply, case .final(let node, let result) = event, replyTo == nil || replyTo == node,
              !result.text.isEmpty else { return }
        _ = try? enqueue(reply.replacingOccurrences(of: "{text}", with: result.text))
    }
}
