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
    let ring: FrameRing
    /// The decoding thread has written everything it will.
    let finished = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let exited = Atomic<Bool>(true)
    private let failure = Locked<String?>(nil)

    init(file: SndFile) {
        self.file = file
        ring = FrameRing(channels: file.format.channelCount, capacity: Int(file.format.sampleRate) * 2)
    }

    /// What stopped decoding early, if anything did.
    var error: String? { failure.withLock { $0 } }

    /// Starts decoding from frame `start`, `loops` times over (after `stop()` or at first).
    func start(from start: Int, loops: Int) {
        stop()
        _ = ring.discard(frames: ring.available)
        finished.store(false, ordering: .relaxed)
        stopping.store(false, ordering: .relaxed)
        exited.store(false, ordering: .releasing)
        let t = Thread { [self] in
            decode(from: start, loops: loops)
            finished.store(true, ordering: .releasing)
            exited.store(true, ordering: .releasing)
        }
        t.name = "audiograph.decoder"
        t.start()
    }

    /// Stops the thread and waits for it (bounded).
    func stop() {
        stopping.store(true, ordering: .releasing)
        for _ in 0..<5000 where !exited.load(ordering: .acquiring) { usleep(1000) }
    }

    private func decode(from start: Int, loops: Int) {
        let chunk = 4096, channels = file.format.channelCount
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: chunk * channels)
        defer { scratch.deallocate() }
        for _ in 0..<loops {
            guard file.seek(to: start) else {
                failure.withLock { $0 = "cannot seek to frame \(start)" }
                return
            }
            while !stopping.load(ordering: .relaxed) {
                let n = file.read(into: scratch, count: chunk)
                if n <= 0 {
                    if let e = file.error { failure.withLock { $0 = e }; return }
                    break
                }
                for i in 0..<(n * channels) where !scratch[i].isFinite { scratch[i] = 0 }
                var written = 0
                while written < n && !stopping.load(ordering: .relaxed) {
                    written += ring.write(interleaved: scratch + written * channels, frames: n - written)
                    if written < n { usleep(2000) }  // the ring is full: the graph is behind
                }
            }
            if stopping.load(ordering: .relaxed) { return }
        }
    }
}
