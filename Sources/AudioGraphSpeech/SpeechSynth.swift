import AudioGraphConversation
import AudioGraphCore
import Foundation
import Synchronization

/// `speech-synth`: speaks text with flite, the vocalizer of an assistant graph. Text comes
/// from the `text` parameter (at start), from code (``speak(_:)``), or as the `reply` to a
/// recognizer's final results; in an assistant graph it also plays the earcons
/// (``Earcon``). Between sounds it plays silence, so a live graph keeps its clock. Reports
/// `speak-start`, `speak-end` and `earcon` in stream order with everything else.
///
/// Synthesis runs on a worker thread (``SpeechWorker``); the render thread only copies
/// samples out of a ring. With file input the graph waits for the worker (nothing is cut);
/// with live input it plays silence until the text is ready.
///
/// Every sound it starts is marked on the graph's `PlaybackGate` (unless `gate` is false), so
/// the graph's listeners do not hear it come back through a microphone.
public final class SpeechSynth: AudioNode, @unchecked Sendable {
    public static let descriptor = NodeDescriptor(
        type: "speech-synth",
        summary: "Speaks text (flite): at start, from code, or in reply to final results; plays an assistant's earcons; silence in between.",
        role: .source,
        parameters: [
            ParameterSpec("voice", .choice(FliteVoice.names), default: "rms",
                          help: "flite voice: rms, slt, awb, kal16 (16 kHz), kal (8 kHz)"),
            ParameterSpec("rate", .number(0.25...4), default: 1, help: "speaking rate (2: twice as fast)"),
            ParameterSpec("text", .string, help: "spoken once at start; the node then ends, unless `reply` is set"),
            ParameterSpec("reply", .string,
                          help: "spoken after each final result, {text} replaced by what was recognised (e.g. \"you said {text}\"); the node runs until the graph stops"),
            ParameterSpec("reply-to", .string, help: "node id of the recognizer whose finals are answered, of those connected to `text` (default: any; a graph without `controls` connects only this one)"),
            ParameterSpec("queue", .integer(1...256), default: 16, help: "texts that may wait to be spoken; one more is an error"),
        ] + Earcon.allCases.map { e in
            ParameterSpec(e.parameter, .sound(["tone", "none"]), default: "tone",
                          help: "earcon played " + {
                              switch e {
                              case .start: "when an assistant starts listening for a command (after its wake word)"
                              case .end: "when an assistant has understood a command (before the reply)"
                              case .cancel: "when a command is cancelled from code"
                              case .error: "when nothing was said after the wake word, or nothing understood"
                              }
                          }() + ": tone (built in, < 0.3 s), none, or a WAV file")
        } + [
            ParameterSpec("echo-tail", .number(0...5), default: 0.3, unit: "s",
                          help: "the listeners leave out what this node plays until this long after it ends (plus the playback latency the sink reports): its echo"),
            ParameterSpec("gate", .bool, default: true,
                          help: "the listeners (vad, recognizer) leave out what this node plays and its echo; false: they hear it"),
            ParameterSpec("barge-in", .bool, default: false,
                          help: "stop speaking when speech starts (the answer is not gated; earcons but the cancel tone are, with gate true); needs a microphone without the answer's echo, see README"),
        ],
        controls: [
            .input("text", .text, help: "a recognizer's `results`: finals answered with `reply`, an assistant's states played as earcons"),
            .output("playing", .gate, help: "what it plays, so the listeners leave it and its echo out (unless `gate` is false)"),
            .output("barge-in", .text, help: "with `barge-in`: the user's speech that cut an answer short, for a recognizer to decode as the next command"),
        ],
        make: { p throws(GraphError) in try SpeechSynth(p) })

    /// Node event kinds: `values.0` the sound's id; `code` its flags (`cancelledFlag`,
    /// `earconFlag`).
    static let speakStart = NodeEvent.Kind(rawValue: 1100)
    static let speakEnd = NodeEvent.Kind(rawValue: 1101)
    /// The assistant speaks (first text after silence) / is done speaking (last text ended).
    static let speaking = NodeEvent.Kind(rawValue: 1102)
    static let doneSpeaking = NodeEvent.Kind(rawValue: 1103)
    /// The answer was cut short by speech that began at `t` (barge-in).
    static let bargedIn = NodeEvent.Kind(rawValue: 1104)
    static let cancelledFlag: Int32 = 1
    static let earconFlag: Int32 = 2

    let ownId: String
    let voiceName: String
    let rate: Double
    let initialText: String?
    let reply: String?
    let replyTo: String?
    let queueCapacity: Int
    let earconSpecs: [Earcon: String]
    let echoTail: Double
    let bargeIn: Bool
    let gates: Bool
    /// With barge-in: whether the earcons are still gated (`gate` true).
    let gatesEarcons: Bool
    var worker: SpeechWorker?
    /// Opens the voice (nil: flite's `voice` at `rate`; `remote-synth`: a server's).
    let openVoice: (() throws(EngineError) -> any SpeechVoice)?
    var earcons: [Earcon: [Float]] = [:]
    var format = StreamFormat(sampleRate: 16000, channelCount: 1)
    private(set) var isLive = false
    private var gate = PlaybackGate()
    /// The recognizers connected to its `text` input: the only ones it answers.
    private(set) var answers: Set<String> = []
    /// Texts by id (read on the delivery thread for the events), and callers awaiting them.
    let texts = Locked<[Int: String]>([:])
    /// Earcons queued, by id.
    let earconIds = Locked<[Int: Earcon]>([:])
    let waiters = Locked<[Int: CheckedContinuation<Bool, Never>]>([:])
    let nextId = Atomic<Int>(0)
    let played = Atomic<Int>(0)
    /// The last text whose `speak-end` the render thread emitted (texts play in id order).
    private let lastEnded = Atomic<Int>(0)
    /// Texts played to their end so far (their `speak-end` delivered, not cancelled).
    public var spoken: Int { played.load(ordering: .acquiring) }
    /// Render thread: the segment playing and how much of it is left; whether text is being spoken.
    private var current: SpeechWorker.Segment?
    /// A segment taken from the worker that waits for its start time.
    private var scheduled: SpeechWorker.Segment?
    /// File input: answers start this long after the event they answer (see `observe`).
    private(set) var responseDelay = 0.0
    private var left = 0
    private var speakingText = false {
        didSet { speakingFlag.store(speakingText, ordering: .relaxed) }
    }
    private let speakingFlag = Atomic<Bool>(false)
    /// Whether text is being spoken (render thread's view; any thread).
    public var speakingNow: Bool { speakingFlag.load(ordering: .relaxed) }
    let cancelRequested = Atomic<Bool>(false)
    /// Barge-in: the onset (stream seconds, bits; NaN: none) of the speech that cuts the answer
    /// short, and the stream time the render thread cuts it at (file input: a fixed delay after
    /// the onset was decided, as answers start; live: at once).
    let bargeOnset = Atomic<UInt64>(Double.nan.bitPattern)
    let bargeAt = Atomic<UInt64>(0.0.bitPattern)
    /// Barge-in: the onset whose `listening` state (a recognizer taking the interrupting
    /// speech as its command) gets no start earcon.
    let quietListening = Atomic<UInt64>(Double.nan.bitPattern)
    private var startedInitial = false
    /// Set once an assistant's events are seen: its speaking states are reported.
    let inAssistant = Atomic<Bool>(false)
    /// Answers (`reply`) the queue had no room for, and how many of them have been reported.
    let droppedAnswers = Atomic<Int>(0)
    var reportedDrops = 0
    /// Earcons the queue had no room for, and how many of them have been reported.
    let droppedEarcons = Atomic<Int>(0)
    var reportedEarconDrops = 0

    /// A speech-synth with `p`'s parameters (its descriptor's, or a node type's that adds to
    /// them) speaking with the voice `openVoice` opens before the run (nil: flite's).
    public init(_ p: ResolvedParameters, voice openVoice: (() throws(EngineError) -> any SpeechVoice)? = nil) throws(GraphError) {
        self.openVoice = openVoice
        ownId = p.nodeId
        voiceName = p.text("voice")
        rate = p.number("rate")
        initialText = p.string("text")
        reply = p.string("reply")
        replyTo = p.string("reply-to")
        queueCapacity = p.integer("queue")
        var specs: [Earcon: String] = [:]
        for e in Earcon.allCases { specs[e] = p.text(e.parameter) }
        earconSpecs = specs
        echoTail = p.number("echo-tail")
        bargeIn = p.bool("barge-in")
        gates = p.bool("gate") && !bargeIn
        gatesEarcons = p.bool("gate")
    }

    public func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] { [format] }

    public func prepare(_ context: PrepareContext) throws(EngineError) {
        isLive = context.isLive
        gate = context.channel(.gate)
        answers = Set(context.controlSources["text"] ?? [])
        // The engine delivers an event within its lockstep slack; one block more, and the
        // answer's start is the same stream time in every file run.
        responseDelay = isLive ? 0 : AudioEngine.lockstepSlack + Double(context.maxFrames) / format.sampleRate + 0.05
        worker?.samplesReady = context.renderReady
        worker?.start()
        if let initialText, !startedInitial {
            startedInitial = true
            _ = try? enqueue(initialText)
        }
    }

    // MARK: Speaking from code

    /// File input: whether the block can be played without waiting for the worker (nothing
    /// is cut with silence): no text left to synthesise and every announced sample written,
    /// or the text playing covers the whole block from samples already in the ring.
    private func ready(_ worker: SpeechWorker, frames n: Int, stopping: Bool) -> Bool {
        if isLive || stopping { return true }
        let available = worker.ring.available
        if current != nil, left >= n, available >= n { return true }
        return worker.pending.load(ordering: .acquiring) == 0
            && (!worker.writing.load(ordering: .acquiring) || available >= n)
    }

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        guard let worker else { return .endOfStream }
        if worker.failed.load(ordering: .acquiring) { return .failed(Self.voiceFailed) }
        let out = io.outputs[0]
        let n = io.requestedFrames
        if !ready(worker, frames: n, stopping: io.isStopping) { return .notReady }
        var filled = 0
        func time(_ frame: Int) -> Double { Double(out.sampleTime + Int64(frame)) / format.sampleRate }
        /// Stops the sound playing here (what is left of it in the ring is dropped).
        func cutCurrent(_ c: SpeechWorker.Segment) {
            _ = worker.ring.discard(frames: left)
            end(c, at: time(0), cancelled: true, &io)
        }
        if cancelRequested.exchange(false, ordering: .acquiring), let c = current { cutCurrent(c) }
        let onset = Double(bitPattern: bargeOnset.load(ordering: .acquiring))
        if !onset.isNaN && time(0) >= Double(bitPattern: bargeAt.load(ordering: .relaxed)) {
            // Barge-in: the answer stops here; listeners on the gate hear of the speech's onset.
            bargeOnset.store(Double.nan.bitPattern, ordering: .relaxed)
            if let c = current, !c.isEarcon { cutCurrent(c) }
            gate.interrupt(at: onset)
            io.emit(NodeEvent(Self.bargedIn, t: onset))
        }
        while filled < n {
            if current == nil {
                guard let s = scheduled ?? worker.segments.pop() else { break }
                // Its first frame, counted from the stream's start (the same whatever the blocks).
                let first = Int64((s.notBefore * format.sampleRate).rounded(.up))
                if first > out.sampleTime + Int64(filled) {
                    // Not yet: silence up to its start (in this block, or the next ones).
                    scheduled = s
                    let frames = Int(first - out.sampleTime) - filled
                    if filled + frames >= n { break }
                    out.channel(0).advanced(by: filled).update(repeating: 0, count: frames)
                    filled += frames
                }
                scheduled = nil
                current = s
                left = s.frames
                let t = time(filled)
                // With barge-in the listeners hear the answers (through an echo canceller), but
                // the earcons stay gated (short, and the first sounds, before a canceller has
                // converged), except the cancel earcon, which plays over the speech that barged in.
                let gated = gates || bargeIn && gatesEarcons && s.gatedEarcon
                if gated { gate.playing(from: t, to: t + Double(s.frames) / format.sampleRate, tail: echoTail) }
                if !s.isEarcon && !speakingText {
                    speakingText = true
                    if inAssistant.load(ordering: .relaxed) { io.emit(NodeEvent(Self.speaking, t: t)) }
                }
                io.emit(NodeEvent(Self.speakStart, t: t, values: (Double(s.id), 0, 0, 0), code: s.isEarcon ? Self.earconFlag : 0))
            }
            let got = worker.ring.read(into: out, at: filled, frames: min(n - filled, left))
            filled += got
            left -= got
            if got > 0 { worker.tookFrames() }
            if left == 0, let c = current {
                end(c, at: time(filled), cancelled: false, &io)
            } else if got == 0 {
                break  // live input: silence until the worker catches up (file input: `ready` saw to it)
            }
        }
        let idle = current == nil && scheduled == nil && worker.segments.count == 0 && worker.pending.load(ordering: .acquiring) == 0
        if idle && speakingText {
            speakingText = false
            if inAssistant.load(ordering: .relaxed) { io.emit(NodeEvent(Self.doneSpeaking, t: time(filled))) }
        }
        let answering = reply != nil || inAssistant.load(ordering: .relaxed)
        if idle && (initialText != nil && !answering || io.isStopping || answering && io.othersFinished) {
            out.frameLength = filled
            return .endOfStream
        }
        // Silence between texts keeps the graph's clock.
        if filled < n { out.channel(0).advanced(by: filled).update(repeating: 0, count: n - filled) }
        out.frameLength = n
        return .ok
    }

    static let voiceFailed: Int32 = 2

    public func failure(_ code: Int32) -> EngineError {
        worker?.failure.withLock { $0 } ?? EngineError(.model, "the voice failed")
    }

    private func end(_ c: SpeechWorker.Segment, at t: Double, cancelled: Bool, _ io: inout ProcessIO) {
        io.emit(NodeEvent(Self.speakEnd, t: t, values: (Double(c.id), 0, 0, 0),
                          code: (cancelled ? Self.cancelledFlag : 0) | (c.isEarcon ? Self.earconFlag : 0)))
        lastEnded.store(c.id, ordering: .releasing)
        current = nil
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
        worker?.start()  // `finish` ended the worker with the last run
        current = nil
        scheduled = nil
        speakingText = false
        startedInitial = false
        texts.withLock { $0.removeAll() }
        earconIds.withLock { $0.removeAll() }
        gate.reset()
    }
}
