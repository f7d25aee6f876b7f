import AudioGraphCore
import Foundation
import Synchronization

/// What a `speech-synth` is asked to say, from any thread: texts (from code or in reply),
/// earcons, and the callers awaiting them.
extension SpeechSynth {
    /// Queues `text`; returns its id (the `id` of its `speak-start` and `speak-end`), or nil
    /// when there is nothing to say. Throws when the queue is full. Any thread.
    @discardableResult
    public func enqueue(_ text: String) throws(EngineError) -> Int? { try enqueue(text, notBefore: 0) }

    func enqueue(_ text: String, notBefore: Double) throws(EngineError) -> Int? {
        let said = FliteVoice.speakable(text)
        guard !said.isEmpty, let worker else { return nil }
        let id = nextId.add(1, ordering: .relaxed).newValue
        texts.withLock { $0[id] = text }
        guard worker.submit(id: id, text: said, notBefore: notBefore) else {
            texts.withLock { $0[id] = nil }
            throw EngineError(.internalLimit, "\(worker.capacity) texts already wait to be spoken", parameter: "queue",
                              suggestion: "wait for speak-end, or raise the node's queue")
        }
        return id
    }

    /// Queues an earcon (nothing when it is `none`; counted, and reported as a warning, when
    /// the queue is full). Any thread.
    func play(_ e: Earcon, notBefore: Double = 0) {
        guard let sound = earcons[e], let worker else { return }
        let id = nextId.add(1, ordering: .relaxed).newValue
        earconIds.withLock { $0[id] = e }
        if !worker.submit(id: id, text: "", sound: sound, notBefore: notBefore, gatedEarcon: e != .cancel) {
            earconIds.withLock { $0[id] = nil }
            droppedEarcons.add(1, ordering: .relaxed)
        }
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

    func finished(_ id: Int, played: Bool) {
        texts.withLock { $0[id] = nil }
        earconIds.withLock { $0[id] = nil }
        waiters.withLock { $0.removeValue(forKey: id) }?.resume(returning: played)
    }

    // MARK: Render thread
}
