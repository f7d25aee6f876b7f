import Synchronization

/// `stream-source`: audio pushed in by the program that runs the graph (a server connection,
/// an app's own capture), like `SFSpeechAudioBufferRecognitionRequest.append`.
///
///     network / app thread ──append()──► ring (bounded) ──► render thread ──► graph
///                        ◄── waits while full ─┘
///
/// The producer appends PCM from any one thread and calls ``endAudio()`` at the end of its
/// audio; the graph then drains and ends with `end-of-input`. When the ring is empty the node
/// answers ``FlowStatus/notReady`` and the render plan waits for the next append, as long as
/// it takes (the program ends or cancels the run; a server bounds idle time itself). When the
/// ring is full, `append` waits for the graph to read: audio is never dropped, and a producer
/// that sends faster than the graph decodes is slowed down (TCP's backpressure, for a server).
///
/// Sendable: the producer side (`append`, `endAudio`) may be called from one thread other
/// than the render thread; the ring between them is lock-free.
public final class StreamSource: AudioNode, @unchecked Sendable {
    /// The `stream-source` node type: its parameters, buses and factory.
    public static let descriptor = NodeDescriptor(
        type: "stream-source",
        summary: "Audio pushed in by the program running the graph (audiograph serve, the Swift API).",
        role: .source,
        parameters: [
            ParameterSpec("rate", .integer(8000...192_000), default: 16000, unit: "Hz", help: "sample rate of the pushed audio"),
            ParameterSpec("channels", .integer(1...8), default: 1, help: "interleaved channels of the pushed audio"),
            ParameterSpec("buffer", .number(0.1...60), default: 5, unit: "s", help: "audio held before append waits for the graph"),
        ],
        isReplaceableInput: true,
        make: { p throws(GraphError) in StreamSource(p) })

    /// The pushed audio's format.
    public let format: StreamFormat
    private let ring: FrameRing
    private let finished = Atomic<Bool>(false)
    private let closed = Atomic<Bool>(false)
    private let room = Wakeup()
    private var renderReady = Readiness()
    private var scratch: [Float] = []
    /// The bytes of a frame split between two `append(pcm:)` calls, until the rest comes.
    private var carry: [UInt8] = []

    init(_ p: ResolvedParameters) {
        format = StreamFormat(sampleRate: Double(p.integer("rate")), channelCount: p.integer("channels"))
        ring = FrameRing(channels: format.channelCount, capacity: Int(p.number("buffer") * format.sampleRate))
    }

    public func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] { [format] }

    public func prepare(_ context: PrepareContext) throws(EngineError) {
        renderReady = context.renderReady
    }

    /// Waits for what is pushed, without a time limit: the program ends or cancels the run.
    public var waitsForProgram: Bool { true }
    /// On `stop()` what was pushed is still delivered.
    public var drainsOnStop: Bool { true }

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        let out = io.outputs[0]
        let n = ring.read(into: out, frames: min(io.requestedFrames, out.frameCapacity))
        out.frameLength = n
        if n > 0 {
            room.signal()
            return .ok
        }
        if io.isStopping || finished.load(ordering: .acquiring) && ring.available == 0 { return .endOfStream }
        return .notReady
    }

    public func finish(_ reason: EndReason) throws(EngineError) {
        closed.store(true, ordering: .releasing)
        room.signal()
    }

    public func reset() {
        _ = ring.discard(frames: ring.available)
        carry = []  // between runs: no producer appends
        finished.store(false, ordering: .releasing)
        closed.store(false, ordering: .releasing)
    }

    public func abandon() {
        closed.store(true, ordering: .releasing)
        room.signal()
    }

    // MARK: Producer side (one thread)

    /// Appends interleaved samples in -1...1 (`format.channelCount` per frame); waits while
    /// the ring is full. Returns false once the run has ended (nothing more is read) or after
    /// ``endAudio()``. Not real-time: call it from the thread that receives the audio.
    @discardableResult
    public func append(interleaved samples: UnsafeBufferPointer<Float>) -> Bool {
        guard let base = samples.baseAddress, !finished.load(ordering: .acquiring) else { return false }
        let frames = samples.count / format.channelCount
        var done = 0
        while done < frames {
            if closed.load(ordering: .acquiring) { return false }
            let n = ring.write(interleaved: base + done * format.channelCount, frames: frames - done)
            done += n
            if n > 0 { renderReady.signal() }
            if done < frames { room.wait(timeout: 0.05) { ring.space > 0 || closed.load(ordering: .acquiring) } }
        }
        return true
    }

    /// Appends little-endian signed PCM of `width` bytes a sample (2: s16le, 4: s32le),
    /// interleaved. The PCM is a stream of bytes: a frame split between two calls (a client's
    /// messages cut anywhere) is kept until its rest comes, so no later frame is shifted. See
    /// ``append(interleaved:)``.
    @discardableResult
    public func append(pcm bytes: UnsafeRawBufferPointer, width: Int) -> Bool {
        guard width == 2 || width == 4 else { return false }
        let frameBytes = width * format.channelCount
        if !carry.isEmpty {
            // Complete the split frame first, then go on with the rest.
            let need = frameBytes - carry.count
            carry += bytes.prefix(need)
            // Still short of a frame: nothing to append, but whether the stream takes more.
            guard carry.count == frameBytes else { return appendWhole(UnsafeRawBufferPointer(start: nil, count: 0), width: width) }
            let first = carry
            carry = []
            guard first.withUnsafeBytes({ appendWhole($0, width: width) }) else { return false }
            return append(pcm: UnsafeRawBufferPointer(rebasing: bytes.dropFirst(need)), width: width)
        }
        let whole = bytes.count - bytes.count % frameBytes
        carry = Array(bytes[whole...])
        return appendWhole(UnsafeRawBufferPointer(rebasing: bytes[..<whole]), width: width)
    }

    /// Appends whole frames of PCM.
    private func appendWhole(_ bytes: UnsafeRawBufferPointer, width: Int) -> Bool {
        guard !bytes.isEmpty else { return !finished.load(ordering: .acquiring) && !closed.load(ordering: .acquiring) }
        let count = bytes.count / width
        if scratch.count < count { scratch = [Float](repeating: 0, count: count) }
        switch width {
        case 2:
            for i in 0..<count { scratch[i] = Float(Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: 2 * i, as: Int16.self))) / 32768 }
        case 4:
            for i in 0..<count { scratch[i] = Float(Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * i, as: Int32.self))) / 2_147_483_648 }
        default:
            return false
        }
        return scratch.withUnsafeBufferPointer { append(interleaved: UnsafeBufferPointer(rebasing: $0[0..<count])) }
    }

    /// The end of the audio: what was appended still flows through, then the source ends.
    public func endAudio() {
        finished.store(true, ordering: .releasing)
        renderReady.signal()
    }
}
