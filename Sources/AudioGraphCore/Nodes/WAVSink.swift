import Foundation
import Synchronization

/// `wav-sink`: writes its input to a WAV file.
///
/// The render thread only copies blocks into the queue of a `LaggingStage`; its writer
/// thread converts and writes them, so no file I/O happens on the audio path. File
/// input waits for the writer when the queue is full (nothing lost); live input drops
/// and counts.
package final class WAVSink: AudioNode {
    /// The `wav-sink` node type: its parameters, buses and factory.
    package static let descriptor = NodeDescriptor(
        type: "wav-sink",
        summary: "Writes its input to a WAV file (16/24-bit PCM or 32-bit float); the header is always valid.",
        role: .sink,
        parameters: [
            ParameterSpec("path", .path, required: true, output: true,
                          help: "WAV file to write (replaced if it exists; a relative path is relative to the working directory)"),
            ParameterSpec("format", .choice(["s16", "s24", "f32"]), default: "s16", help: "sample format"),
        ],
        make: { p throws(GraphError) in WAVSink(p) })

    let path: String
    let sampleFormat: WAVFileWriter.SampleFormat
    /// The writer thread and its queue.
    private var stage: LaggingStage?
    private var writer: WAVFileWriter?
    private let writeError = Locked<EngineError?>(nil)
    /// What the run's integer PCM clipped, said once the file is written (``takeEvents(nodeId:)``).
    private let clipReport = Locked<String?>(nil)
    /// False when a reset could not make the file again: the run fails at its first block
    /// (set before the run, read on the render thread).
    private var canWrite = true

    init(_ p: ResolvedParameters) {
        path = p.text("path")
        sampleFormat = p.choice("format")
    }

    package func prepare(_ context: PrepareContext) throws(EngineError) {
        let format = context.inputFormats[0]
        writer = try WAVFileWriter(path: path, format: format, sampleFormat: sampleFormat, maxFrames: context.maxFrames)
        stage = LaggingStage(name: "audiograph.wav-sink", format: format, maxFrames: context.maxFrames, blockCount: 64,
                             policy: context.isLive ? .drop : .block)
        stage?.queue.roomMade = context.renderReady
        startWriter()
    }

    private func startWriter() {
        guard let stage, let writer else { return }
        let box = UncheckedSendable((writer, self))
        stage.start { stage in
            let (writer, sink) = box.value
            var failed = false
            while let (index, block) = stage.next() {
                if !failed {
                    do { try writer.append(block) } catch {
                        failed = true
                        sink.writeError.withLock { $0 = error as? EngineError }
                        stage.cancel()  // the render thread stops waiting for space
                    }
                }
                stage.release(index)
            }
        }
    }

    package func process(_ io: inout ProcessIO) -> FlowStatus {
        guard canWrite else { return .failed(1) }
        let input = io.inputs[0]
        guard input.frameLength > 0 else { return .ok }
        let stage = stage.unsafelyUnwrapped
        // File input: the writer is a whole queue behind (a slow disk); the engine waits for room.
        if stage.queue.policy == .block && !stage.queue.hasRoom { return .notReady }
        stage.write(input)
        return .ok
    }

    package func failure(_ code: Int32) -> EngineError {
        writeError.withLock { $0 } ?? EngineError(.io, "cannot write", file: path)
    }

    package func finish(_ reason: EndReason) throws(EngineError) {
        guard let writer, let stage else { return }
        stage.finish()
        self.writer = nil
        if let clipped = writer.clipped.report("writing \(sampleFormat.rawValue)") {
            clipReport.withLock { $0 = "\(path): \(clipped): lower the gain before it, or write format f32" }
        }
        try writer.close()
        if let e = writeError.withLock({ $0 }) { throw e }
        let lost = stage.queue.lostBlocks.load(ordering: .relaxed)
        if lost > 0 {
            throw EngineError(.io, "\(lost) blocks were dropped because the disk was too slow", file: path)
        }
    }

    /// The clipping of the run, once it is written.
    package func takeEvents(nodeId: String) -> [EngineEvent] {
        clipReport.withLock { report in
            defer { report = nil }
            return report.map { [.warning(node: nodeId, message: $0)] } ?? []
        }
    }

    package func reset() {
        clipReport.withLock { $0 = nil }
        // A new run writes the file anew; one that cannot (the path is now a folder, the disk
        // read-only) fails at its first block, instead of losing its audio without a word.
        guard let q = stage?.queue else { return }
        do {
            writer = try WAVFileWriter(path: path, format: q.blocks[0].format, sampleFormat: sampleFormat,
                                       maxFrames: q.blocks[0].frameCapacity)
            writeError.withLock { $0 = nil }
            canWrite = true
            startWriter()
        } catch {
            writeError.withLock { $0 = error }
            canWrite = false
        }
    }
}
