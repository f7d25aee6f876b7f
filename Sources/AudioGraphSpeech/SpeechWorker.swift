import AudioGraphCore
import Foundation
import Synchronization

/// Synthesises queued texts on a thread of its own into a bounded ring that a
/// `speech-synth` node plays from on the render thread (flite allocates: never there).
///
///     speak() ──► requests ──► worker thread (flite) ──► ring + segments ──► render thread
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
    }

    let ring: FrameRing
    let segments = SPSCQueue<Segment>(capacity: 256)
    /// Texts accepted and not yet announced as segments (synthesising or waiting).
    let pending = Atomic<Int>(0)
    /// Bumped by ``cancelAll()``: a text taken before it is dropped, not announced.
    let generation = Atomic<Int>(0)
    private let requests = Locked<[(id: Int, text: String, sound: [Float]?, notBefore: Double, generation: Int)]>([])
    private let work = Wakeup()
    private let closing = Atomic<Bool>(false)
    private let exited = Atomic<Bool>(true)
    private let voice: FliteVoice
    private let rate: Double
    let capacity: Int

    init(voice: FliteVoice, rate: Double, capacity: Int) {
        self.voice = voice
        self.rate = rate
        self.capacity = capacity
        ring = FrameRing(channels: 1, capacity: voice.sampleRate * 60)
    }

    /// Queues a text, or a ready sound to play as is (an earcon); false when `capacity` wait.
    func submit(id: Int, text: String, sound: [Float]? = nil, notBefore: Double = 0) -> Bool {
        let g = generation.load(ordering: .acquiring)
        let accepted = requests.withLock { r -> Bool in
            guard r.count + segments.count < capacity else { return false }
            r.append((id, text, sound, notBefore, g))
            return true
        }
        if accepted {
            pending.add(1, ordering: .releasing)
            work.signal()
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

    func start() {
        guard exited.load(ordering: .acquiring) else { return }
        closing.store(false, ordering: .relaxed)
        exited.store(false, ordering: .relaxed)
        let t = Thread { [self] in
            run()
            exited.store(true, ordering: .releasing)
        }
        t.name = "audiograph.speech"
        t.start()
    }

    /// Stops the thread (bounded wait); queued texts are dropped.
    func close() {
        closing.store(true, ordering: .releasing)
        work.signal()
        for _ in 0..<2000 where !exited.load(ordering: .acquiring) { usleep(1000) }
    }

    private func run() {
        while !closing.load(ordering: .acquiring) {
            guard let next = requests.withLock({ r in r.isEmpty ? nil : r.removeFirst() }) else {
                work.wait(timeout: 0.05) { closing.load(ordering: .relaxed) || requests.withLock { !$0.isEmpty } }
                continue
            }
            let samples = next.sound ?? voice.synthesize(FliteVoice.speakable(next.text), rate: rate)
            if generation.load(ordering: .acquiring) != next.generation { continue }  // cancelled meanwhile
            // Announced once its samples (or the first 60 s of them) are in the ring.
            var written = 0
            var announced = false
            while written < samples.count || !announced {
                if generation.load(ordering: .acquiring) != next.generation || closing.load(ordering: .acquiring) { break }
                if written < samples.count {
                    written += samples.withUnsafeBufferPointer { s in
                        ring.write(interleaved: s.baseAddress! + written, frames: samples.count - written)
                    }
                }
                if !announced && (written == samples.count || ring.space == 0) {
                    while !segments.push(Segment(id: next.id, frames: samples.count, isEarcon: next.sound != nil, notBefore: next.notBefore)) { usleep(1000) }
                    pending.subtract(1, ordering: .releasing)
                    announced = true
                }
                if written < samples.count { usleep(5000) }
            }
            if !announced { pending.subtract(1, ordering: .releasing) }
        }
    }
}
