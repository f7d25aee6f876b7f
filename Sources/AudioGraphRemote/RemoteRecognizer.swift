import AudioGraphClient
import AudioGraphConversation
import AudioGraphCore
import Foundation
import Synchronization

/// `remote-recognizer`: the recognizer's work done by an `audiograph serve` (SpeechKit's
/// architecture: the device captures, segments and plays; the server recognises).
///
///     render thread ──► FrameRing ──► sender thread ──► WebSocket ──► server's graph
///                                       events task ◄── partials, finals ◄──┘ ──► delivery thread
///
/// Its input (16 kHz mono after the local vad and end of speech, as a recognizer's) is
/// streamed whole to a session of the server's `graph` (by default `dictation`), which
/// segments and decodes it as the local graph would: the same audio gives the same finals,
/// with word times on the same clock (the session starts with the run). Partials and finals
/// come back as this node's events. With file input a full ring makes the graph wait; with
/// live input audio is dropped and counted. With a `wake-word` the server's session is the
/// assistant's recognizer: `wake` and `assistant` events come back too, for a speech-synth
/// (or remote-synth) connected to `results` to answer. What the graph plays (`gate`) is
/// sent as silence, as a local recognizer leaves it out. A server that is not there fails `prepare`
/// (one error line). With live input a session the server ends or loses mid-run (a restart,
/// a drain, its session limit, a proxy's timeout) is started again, with backoff, while the
/// ring keeps 5 s of what comes (`warning` events say so); its times and utterance numbers go
/// on from the run's. Its sessions say so (`reconnects`): a draining server ends one at any
/// pause, not only after an utterance, and one past its limit at a pause, not mid-sentence.
/// With file input it is an `error` event naming the server, and the run ends (the finals of
/// what the server heard first).
public final class RemoteRecognizer: AudioNode, @unchecked Sendable {
    /// The `remote-recognizer` node type.
    public static let descriptor = NodeDescriptor(
        type: "remote-recognizer",
        summary: "Recognition done by an audiograph serve (ws://HOST:PORT): the recognizer's events, the work on a server.",
        role: .sink,
        parameters: RemoteServer.parameters(timeout: "to connect, and for the last results after the audio") + [
            ParameterSpec("graph", .string, default: "dictation", help: "the server's graph to recognise with"),
            ParameterSpec("grammar", .path, help: "JSGF grammar file, sent to the server (replaces the graph's search)"),
            ParameterSpec("partials", .number(0...10), default: 0.25, unit: "s", help: "seconds between partial results (0: none)"),
            ParameterSpec("alternatives", .integer(0...10), default: 3, help: "n-best alternatives in final results"),
            ParameterSpec("wake-word", .string,
                          help: "assistant mode on the server: wait for this phrase, then recognise one command, then wait again; reports wake and assistant events"),
            ParameterSpec("command-timeout", .number(0.5...60), default: 5, unit: "s",
                          help: "with wake-word: back to waiting when no command begins this long after the wake word"),
        ],
        inputs: .fixed(1),
        controls: [
            .output("results", .text, help: "final results, and with a `wake-word` the assistant's states (a speech-synth's replies and earcons)"),
            .input("gate", .gate, help: "what the graph plays: sent as silence with live input (it does not hear itself)"),
        ],
        make: { p throws(GraphError) in try RemoteRecognizer(p) })

    let server: RemoteServer
    var options: RemoteRecognitionSession.Options
    /// To connect, and for the last results after the audio.
    var timeout: Double { server.timeout }
    var ring = FrameRing(channels: 1, capacity: 1)
    var isLive = false
    var renderReady = Readiness()
    var eventsReady = Wakeup()
    private var gate = PlaybackGate()
    /// Silence written for gated audio (10 ms at 16 kHz: the gate's grain).
    private let silence = [Float](repeating: 0, count: 160)
    /// Between prepare and finish.
    private var started = false
    let pending = Mutex<[EngineEvent]>([])
    let inputEnded = Atomic<Bool>(false)
    /// File input: the input's end is in the ring (render thread).
    private var endWritten = false
    private var endWrittenAt = 0.0
    static let noLastResults: Int32 = 2
    /// The server's events have all come (its session ended, or the connection failed).
    let received = Atomic<Bool>(false)
    /// ...and have all been delivered: the delivery thread found none left after they came
    /// (it hands a round's events to observers before it asks again).
    private let delivered = Atomic<Bool>(false)
    let failed = Atomic<Bool>(false)
    /// Live input: frames the ring had no room for, and frames read for a session whose
    /// connection had dropped (both unheard); frames read from the ring in all.
    let lost = Atomic<Int>(0)
    let unsent = Atomic<Int>(0)
    let taken = Atomic<Int>(0)
    /// The session audio goes to; nil while one is started again (live input).
    let current = Mutex<RemoteRecognitionSession?>(nil)
    /// Sends what the render thread writes, woken by it (no polling).
    let sender = WorkerThread(name: "audiograph.remote-send")
    var receiver: Task<Void, Never>?
    let sent = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)

    init(_ p: ResolvedParameters) throws(GraphError) {
        server = try RemoteServer(p)
        options = RemoteRecognitionSession.Options(graph: p.text("graph"), partials: p.number("partials"),
                                                   alternatives: p.integer("alternatives"))
        if let path = p.string("grammar") { options.grammar = try Self.grammar(path, p) }
        if let w = p.string("wake-word") {
            guard !w.trimmingCharacters(in: .whitespaces).isEmpty else { throw p.error("wake-word", "expected a phrase, got an empty string") }
            options.wakeWord = w
            options.commandTimeout = p.number("command-timeout")
        }
    }

    /// The text of the grammar file at `path`, sent to the server (which checks it as a
    /// grammar). Read when the graph is checked, as a local recognizer's: a device, a pipe, a
    /// folder or text that is not UTF-8 is one line naming it.
    private static func grammar(_ path: String, _ p: ResolvedParameters) throws(GraphError) -> String {
        if let why = PathKind(path).fileProblem { throw p.error("grammar", "\(path): \(why)") }
        guard let data = FileManager.default.contents(atPath: path) else { throw p.error("grammar", "\(path): cannot read it") }
        let bytes = [UInt8](data)
        guard let text = TextBytes.utf8(bytes) else { throw p.error("grammar", "\(path): \(TextBytes.notUTF8(bytes))") }
        return text
    }

    public func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] { [] }

    public func acceptedFormat(forInput bus: Int, offered: StreamFormat, all: [StreamFormat]) -> StreamFormat {
        StreamFormat(sampleRate: 16000, channelCount: 1)
    }

    /// Connects and starts the server's session (before the run: a server that is not there,
    /// a wrong key or an unknown graph fail here, with one line).
    public func prepare(_ context: PrepareContext) throws(EngineError) {
        isLive = context.isLive
        options.reconnects = isLive  // live input starts a session again when the server ends one
        renderReady = context.renderReady
        eventsReady = context.eventsReady
        gate = context.channel(.gate)
        ring = FrameRing(channels: 1, capacity: 16000 * 5)
        endWritten = false
        inputEnded.store(false, ordering: .relaxed)
        received.store(false, ordering: .relaxed)
        delivered.store(false, ordering: .relaxed)
        failed.store(false, ordering: .relaxed)
        lost.store(0, ordering: .relaxed)
        unsent.store(0, ordering: .relaxed)
        taken.store(0, ordering: .relaxed)
        options.sampleRate = Int(context.inputFormats[0].sampleRate)
        let s = RemoteRecognitionSession(server.endpoint, options: options)
        do {
            try blocking { try await s.start() }
        } catch {
            throw server.refusal(error)
        }
        started = true
        startTasks(s)
    }

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        if failed.load(ordering: .acquiring) { return .failed(1) }
        if endWritten {
            // File input, its end sent: the run waits until the server's last results are
            // in and taken for delivery, so a synth answering them still speaks; `timeout` at most.
            if delivered.load(ordering: .acquiring) { return .endOfStream }
            return monotonicSeconds() - endWrittenAt > timeout ? .failed(Self.noLastResults) : .notReady
        }
        let input = io.inputs[0]
        if input.frameLength > 0 {
            if ring.space < input.frameLength {
                if !isLive { return .notReady }  // file input: wait for the sender (nothing lost)
                lost.add(input.frameLength - ring.space, ordering: .relaxed)
            }
            write(input, frames: min(input.frameLength, ring.space))
            sender.wake.signal()
        }
        if io.inputsEnded {
            inputEnded.store(true, ordering: .releasing)
            sender.wake.signal()
            if !isLive {
                endWritten = true
                endWrittenAt = monotonicSeconds()
                return .notReady
            }
            return .endOfStream
        }
        return .ok
    }

    /// Copies `frames` of `input` into the ring, 10 ms at a time, silence where the gate says
    /// the graph was playing (as a local recognizer's queue mutes it). With file input there is
    /// no echo to leave out, and what the graph plays starts when the server's events arrive,
    /// not at a fixed stream time: the gate would silence arbitrary stretches of the input.
    private func write(_ input: AudioBuffer, frames: Int) {
        guard isLive else {
            _ = ring.write(input, frames: frames)
            return
        }
        gate.spans(from: input.sampleTime, frames: frames, rate: input.format.sampleRate) { k, n, covered in
            if covered {
                _ = silence.withUnsafeBufferPointer { ring.write(interleaved: $0.baseAddress!, frames: n) }
            } else {
                _ = ring.write(input, from: k, frames: n)
            }
        }
    }

    /// Its server's results come after its input: a synth answering them waits for its end.
    public var reportsAfterInput: Bool { true }

    public func failure(_ code: Int32) -> EngineError {
        code == Self.noLastResults ? noLastResults : server.failure("the connection was lost mid-run")
    }

    private var noLastResults: EngineError { server.failure("no last results within \(Int(timeout)) s", parameter: "timeout") }

    /// The audio is over: the server finishes the utterance in flight; its last results are
    /// waited for (at most `timeout` s).
    public func finish(_ reason: EndReason) throws(EngineError) {
        guard started else { return }
        started = false
        // The current session (nil while live input's is being started again).
        let session = current.withLock { $0 }
        if reason == .cancelled { Task.detached { await session?.cancel() } }
        inputEnded.store(true, ordering: .releasing)
        sender.wake.signal()
        defer { sender.requestStop(); sender.join() }
        if reason == .error {
            // The run failed (this node's server, or another node): its results are not waited for.
            receiver?.cancel()
            Task.detached { await session?.cancel() }
            return
        }
        if sent.wait(timeout: .now() + timeout) == .timedOut || done.wait(timeout: .now() + timeout) == .timedOut {
            receiver?.cancel()
            throw noLastResults
        }
        let n = lost.load(ordering: .relaxed) + unsent.load(ordering: .relaxed)
        if n > 0 { pending.withLock { $0.append(.overrun(node: "", lost: n)) } }
    }

    public func abandon() {
        let session = current.withLock { $0 }
        Task.detached { await session?.cancel() }
    }

    public func takeEvents(nodeId: String) -> [EngineEvent] {
        let taken = pending.withLock { all in
            defer { all.removeAll() }
            return all.map { $0.withNode(nodeId) }
        }
        if received.load(ordering: .acquiring) {
            if taken.isEmpty {
                delivered.store(true, ordering: .releasing)
                renderReady.signal()  // a file run's end waits for this
            } else {
                eventsReady.signal()  // come back once these are delivered
            }
        }
        return taken
    }
}
