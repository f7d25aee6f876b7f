import Foundation
import Synchronization

/// `wav-sink`: writes its input to a WAV file.
///
/// The render thread only copies blocks into a bounded queue; a writer thread of the
/// node's own converts and writes them, so no file I/O happens on the audio path. File
/// input waits for the writer when the queue is full (nothing lost); live input drops
/// and counts.
public final class WAVSink: AudioNode {
    /// The `wav-sink` node type: its parameters, buses and factory.
    public static let descriptor = NodeDescriptor(
        type: "wav-sink",
        summary: "Writes its input to a WAV file (16/24-bit PCM or 32-bit float); the header is always valid.",
        role: .sink,
        parameters: [
            ParameterSpec("path", .path, required: true, help: "WAV file to write (replaced if it exists)"),
            ParameterSpec("format", .choice(["s16", "s24", "f32"]), default: "s16", help: "sample format"),
        ],
        make: { p throws(GraphError) in WAVSink(p) })

    let path: String
    let sampleFormat: WAVFileWriter.SampleFormat
    private var queue: BlockQueue?
    private var writer: WAVFileWriter?
    private var writerThread: Thread?
    private let done = Atomic<Bool>(false)
    private let writerExited = Atomic<Bool>(false)
    private let writeError = Locked<EngineError?>(nil)

    init(_ p: ResolvedParameters) {
        path = p.string("path") ?? ""
        sampleFormat = WAVFileWriter.SampleFormat(rawValue: p.string("format") ?? "s16") ?? .s16
    }

    public func prepare(_ context: PrepareContext) throws(EngineError) {
        let format = context.inputFormats[0]
        writer = try WAVFileWriter(path: path, format: format, sampleFormat: sampleFormat, maxFrames: context.maxFrames)
        queue = BlockQueue(format: format, maxFrames: context.maxFrames, blockCount: 64,
                         policy: context.isLive ? .drop : .block)
        startWriter()
    }

    private func startWriter() {
        guard let queue, let writer else { return }
        done.store(false, ordering: .relaxed)
        writerExited.store(false, ordering: .relaxed)
        let box = UncheckedSendable((queue, writer, self))
        let thread = Thread {
            let (queue, writer, sink) = box.value
            var failed = false
            while true {
                if let (index, block) = queue.next() {
                    if !failed {
                        do { try writer.append(block) } catch {
                            failed = true
                            sink.writeError.withLock { $0 = error as? EngineError }
                            queue.abandoned.store(true, ordering: .relaxed)
                        }
                    }
                    queue.release(index)
                } else if sink.done.load(ordering: .acquiring) {
                    if !queue.hasData { break }  // a block may have landed after next()
                } else {
                    queue.waitForData(timeout: 0.01)
                }
            }
            sink.writerExited.store(true, ordering: .releasing)
        }
        thread.name = "audiograph.wav-sink"
        writerThread = thread
        thread.start()
    }

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        let input = io.inputs[0]
        if input.frameLength > 0 { queue.unsafelyUnwrapped.write(input) }
        return .ok
    }

    public func finish(_ reason: EndReason) throws(EngineError) {
        guard let writer, let queue else { return }
        done.store(true, ordering: .releasing)
        while !writerExited.load(ordering: .acquiring) { Backoff.idle() }
        self.writer = nil
        try writer.close()
        if let e = writeError.withLock({ $0 }) { throw e }
        let lost = queue.lostBlocks.load(ordering: .relaxed)
        if lost > 0 {
            throw EngineError(.io, "\(lost) blocks were dropped because the disk was too slow", file: path)
        }
    }

    public func reset() {
        // A new run writes the file anew.
        if let q = queue, let w = try? WAVFileWriter(path: path, format: q.blocks[0].format,
                                                        sampleFormat: sampleFormat, maxFrames: q.blocks[0].frameCapacity) {
            writer = w
            startWriter()
        }
    }
}
