import AudioGraphCore
import Foundation
import Synchronization

/// Synthesises queued texts on a thread of its own into a bounded ring that a
/// `speech-synth` node plays from on the render thread (synthesis allocates, and a remote
/// voice waits on its server: never there).
///
///     speak() ──► requests ──► worker thread (SpeechVoice) ──► ring + segments ──► render thread
///
/// A text's samples are all in the ring before its segment is announced, so the render
/// thread never runs dry inside an utterance (unless it is longer than the ring, 60 s).
final class SpeechWorker: @unchecked Sendable {
    /// One spoken text's place in the ring: its id and length in frames.
    struct Segment: BitwiseCopyable {
        var id: Int
        var frames: Int
        /// An earcon (samples given), not spoken text.
        var isEarcon: Bool
        /// Stream time before which it does not start (file input: see `SpeechSynth`).
        var notBefore: Double
        /// An earcon the gate covers even with barge-in (all but the cancel earcon).
        var gatedEarcon: Bool
    }

    let ring: FrameRing
    let segments = SPSCQueue<Segment>(capacity: 256)
    /// Texts accepted and not yet announced as segments (synthesising or waiting).
    let pending = Atomic<Int>(0)
    /// Bumped by ``cancelAll()``: a text taken before it is dropped, not announced.
    let generation = Atomic<Int>(0)
    /// A text announced (its segment pushed) whose samples are still being written (longer
    /// than the ring's free room): the render thread may find fewer than its frames there.
    let writing = Atomic<Bool>(false)
    /// Signalled when a segment is announced and when samples are written (the render thread
    /// of a file run may wait for them). Set before `start`.
    var samplesReady = Readiness()
    private let requests = Locked<[(id: Int, text: String, sound: [Float]?, notBefore: Double, gatedEarcon: Bool, generation: Int)]>([])
    private let thread = WorkerThread(name: "audiograph.speech")
    private var running = false
    private let voice: any SpeechVoice
    let capacity: Int
    /// Set once the voice has failed (its error in ``failure``): the node's run ends.
    let failed = Atomic<Bool>(false)
    let failure = Locked<EngineError?>(nil)

    init(voice: any SpeechVoice, capacity: Int) {
        self.voice = voice
        self.capacity = capacity
        ring = FrameRing(channels: 1, capacity: voice.sampleRate * 60)
    }

    /// Queues a text, or a ready sound to play as is (an earcon); false when `capacity` wait.
    func submit(id: Int, text: String, sound: [Float]? = nil, notBefore: Double = 0, gatedEarcon: Bool = false) -> Bool {
        let g = generation.load(ordering: .acquiring)
        let accepted = requests.withLock { r -> Bool in
            guard r.count + segments.count < capacity else { return false }
            r.append((id, text, sound, notBefore, gatedEarcon, g))
            return true
        }
        if accepted {
            pending.add(1, ordering: .releasing)
            thread.wake.signal()
        }
        return accepted
    }

    /// Drops every text not yet announced; returns their ids.
    @discardableResult
    func cancelAll() -> [Int] {
        generation.add(1, ordering: .releasing)
        let dropped = requests.withLock { r in
            defer { r.removeAll() }
            return r.map(\.id)
        }
        pending.subtract(dropped.count, ordering: .releasing)
        return dropped
    }

    /// Starts the thread (control thread; once per run).
    func start() {
        guard !running else { return }
        running = true
        let box = UncheckedSendable(self)
        thread.start { worker in box.value.run(worker) }
    }

    /// Stops the thread and waits for it to end; queued texts are dropped. Flite finishes
    /// the text it is synthesising first.
    func close() {
        guard running else { return }
        thread.requestStop()
        thread.join()
        running = false
        writing.store(false, ordering: .relaxed)
    }

    /// Render thread: samples were taken from the ring (the worker may wait for room).
    func tookFrames() { thread.wake.signal() }

    private func run(_ worker: WorkerThread) {
        while !worker.isStopping {
            guard let next = requests.withLock({ r in r.isEmpty ? nil : r.removeFirst() }) else {
                worker.wake.wait(timeout: 0.5) { worker.isStopping || requests.withLock { !$0.isEmpty } }
                continue
            }
            let samples: [Float]
            do throws(EngineError) {
                if let sound = next.sound { samples = sound } else { samples = try voice.synthesize(FliteVoice.speakable(next.text)) }
            } catch {
                failure.withLock { $0 = error }
                failed.store(true, ordering: .releasing)
                pending.subtract(1, ordering: .releasing)
                samplesReady.signal()
                continue
            }
            // Announced once its samples (or the first 60 s of them) are in the ring. A text
            // cancelled while it was synthesised (`cancelAll` no longer saw it among the
            // requests) stops at once below and leaves the pending count there.
            var written = 0
            var announced = false
            while written < samples.count || !announced {
                if generation.load(ordering: .acquiring) != next.generation || worker.isStopping { break }
                if written < samples.count {
                    written += samples.withUnsafeBufferPointer { s in
                        ring.write(interleaved: s.baseAddress! + written, frames: samples.count - written)
                    }
                    samplesReady.signal()
                }
                if !announced && (written == samples.count || ring.space == 0) {
                    let segment = Segment(id: next.id, frames: samples.count, isEarcon: next.sound != nil, notBefore: next.notBefore,
                                          gatedEarcon: next.gatedEarcon)
                    // `writing` before the announcement: a render thread that sees the segment
                    // and no text pending knows whether all its samples are there.
                    writing.store(written < samples.count, ordering: .releasing)
                    while !segments.push(segment) && !worker.isStopping {  // 256 queued: wait for the render thread
                        worker.wake.wait(timeout: 0.05) { worker.isStopping }
                    }
                    pending.subtract(1, ordering: .releasing)
                    announced = true
                    samplesReady.signal()
                }
                if written < samples.count {  // the ring is full: wait for the render thread to read
                    worker.wake.wait(timeout: 0.1) { worker.isStopping || ring.space > 0 }
                }
            }
            writing.store(false, ordering: .releasing)
            samplesReady.signal()
            if !announced { pending.subtract(1, ordering: .releasing) }
        }
    }
}
