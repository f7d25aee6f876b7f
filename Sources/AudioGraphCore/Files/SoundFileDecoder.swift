import Foundation
import Synchronization

/// Decodes a compressed or non-WAV sound file (``SndFile``) on a thread of its own into a
/// bounded ring that a `file-source` plays from on the render thread, which must not do file
/// I/O or run a decoder:
///
///     SndFile (FLAC, Ogg, MP3, …) ──► decoding thread ──► FrameRing (2 s) ──► render thread
///
/// The thread plays the file from `start` `loops` times over, then marks the end. File
/// input waits for it (nothing is cut); a decoding error ends the stream early with its message.
final class SoundFileDecoder: @unchecked Sendable {
    let file: SndFile
    private(set) var ring: FrameRing
    /// The decoding thread has written everything it will.
    let finished = Atomic<Bool>(false)
    private let thread = WorkerThread(name: "audiograph.decoder")
    private let failure = Locked<String?>(nil)
    /// Signalled after each write into the ring (the render thread may wait for audio).
    var written = Readiness()

    init(file: SndFile) {
        self.file = file
        ring = FrameRing(channels: file.format.channelCount, capacity: Int(file.format.sampleRate) * 2)
    }

    /// Makes the ring hold at least two blocks of `frames` (a block is read whole or not at
    /// all). Before `start`.
    func holdBlocks(of frames: Int) {
        if ring.capacity < 2 * frames { ring = FrameRing(channels: file.format.channelCount, capacity: 2 * frames) }
    }

    /// What stopped decoding early, if anything did.
    var error: String? { failure.withLock { $0 } }

    /// Starts decoding from frame `start`, `loops` times over (after `stop()` or at first).
    func start(from start: Int, loops: Int) {
        stop()
        _ = ring.discard(frames: ring.available)
        finished.store(false, ordering: .relaxed)
        let box = UncheckedSendable(self)
        thread.start { worker in
            box.value.decode(from: start, loops: loops, worker)
            box.value.finished.store(true, ordering: .releasing)
            box.value.written.signal()
        }
    }

    /// Stops the thread and waits for it to end.
    func stop() {
        thread.requestStop()
        thread.join()
    }

    /// Render thread: frames were taken from the ring (the decoder may be waiting for room).
    func tookFrames() { thread.wake.signal() }

    private func decode(from start: Int, loops: Int, _ worker: WorkerThread) {
        let chunk = 4096, channels = file.format.channelCount
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: chunk * channels)
        defer { scratch.deallocate() }
        for _ in 0..<loops {
            guard file.seek(to: start) else {
                failure.withLock { $0 = "cannot seek to frame \(start)" }
                return
            }
            while !worker.isStopping {
                let n = file.read(into: scratch, count: chunk)
                if n <= 0 {
                    if let e = file.error { failure.withLock { $0 = e }; return }
                    break
                }
                for i in 0..<(n * channels) where !scratch[i].isFinite { scratch[i] = 0 }
                var done = 0
                while done < n && !worker.isStopping {
                    done += ring.write(interleaved: scratch + done * channels, frames: n - done)
                    written.signal()
                    if done < n {  // the ring is full: the graph is behind; wait for it to read
                        worker.wake.wait(timeout: 0.1) { worker.isStopping || ring.space > 0 }
                    }
                }
            }
            if worker.isStopping { return }
        }
    }
}
