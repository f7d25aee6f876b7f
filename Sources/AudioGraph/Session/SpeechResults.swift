import AudioGraphCore
import Foundation

/// One recognition result, in the shape Apple's SpeechAnalyzer settled on: a volatile
/// (partial) result covers the audio of the utterance so far and is replaced by later ones;
/// a final result replaces every volatile result of its range and is never revised.
public struct SpeechResult: Sendable, Equatable {
    /// The recognizer node it comes from.
    public var node: String
    /// The utterance it belongs to (1, 2, ... in the session).
    public var utterance: Int
    /// The words recognised, separated by spaces.
    public var text: String
    /// Whether this is the utterance's final result (never revised); false for a volatile one.
    public var isFinal: Bool
    /// The stream time the result covers, in seconds: the utterance's onset to its end (a
    /// final) or to the last speech event known when the volatile result came.
    public var range: ClosedRange<Double>
    /// Word times and confidences, alternatives and confidence (finals; empty for volatile).
    public var words: [RecognitionResult.Word]
    /// The n-best alternatives, best first (final results).
    public var alternatives: [RecognitionResult.Alternative]
    /// The expected fraction of the text's words that are right, 0...1 (final results; see
    /// ``RecognitionResult/confidence``).
    public var confidence: Double
}

/// The results of a session as an AsyncSequence of ``SpeechResult``. Finals and the end are
/// kept until read, however slow the reader (memory grows only with what was said); a
/// volatile result not yet read is replaced by the next one of the same utterance.
public final class SpeechResults: AsyncSequence, Sendable {
    public typealias Element = SpeechResult

    private struct State {
        var pending: [SpeechResult] = []
        var finished = false
        var waiter: CheckedContinuation<SpeechResult?, Never>?
        /// Stream time up to which every result is final.
        var finalizedThrough = 0.0
        /// Onsets of utterances in progress, and the latest event time seen.
        var onset: Double?
        var latest = 0.0
    }
    private let state = Locked(State())

    init() {}

    /// Stream time up to which results are final (SpeechAnalyzer's resultsFinalizationTime).
    public var finalizationTime: Double { state.withLock { $0.finalizedThrough } }

    /// Takes the session's events in stream order (delivery thread).
    func take(_ event: EngineEvent) {
        var result: SpeechResult?
        var end = false
        state.withLock { s in
            switch event {
            case .speechStart(_, let t, _):
                if s.onset == nil { s.onset = t }
                s.latest = Swift.max(s.latest, t)
            case .speechEnd(_, let t, _), .utteranceEnd(_, _, let t, _):
                s.latest = Swift.max(s.latest, t)
            case .partial(let node, let u, let text):
                let start = s.onset ?? s.finalizedThrough
                result = SpeechResult(node: node, utterance: u, text: text, isFinal: false,
                                      range: start...Swift.max(start, s.latest), words: [], alternatives: [], confidence: 0)
            case .final(let node, let r):
                result = SpeechResult(node: node, utterance: r.utterance, text: r.text, isFinal: true,
                                      range: r.start...Swift.max(r.start, r.end), words: r.words,
                                      alternatives: r.alternatives, confidence: r.confidence)
                s.finalizedThrough = Swift.max(s.finalizedThrough, r.end)
                s.onset = nil
            case .end:
                end = true
            default: break
            }
        }
        if let result { push(result) }
        if end { finish() }
    }

    private func push(_ r: SpeechResult) {
        let waiter = state.withLock { s -> CheckedContinuation<SpeechResult?, Never>? in
            if let w = s.waiter {
                s.waiter = nil
                return w
            }
            // An unread volatile result of the same utterance is superseded.
            if let last = s.pending.last, !last.isFinal, last.utterance == r.utterance, last.node == r.node {
                s.pending.removeLast()
            }
            s.pending.append(r)
            return nil
        }
        waiter?.resume(returning: r)
    }

    private func finish() {
        let waiter = state.withLock { s -> CheckedContinuation<SpeechResult?, Never>? in
            s.finished = true
            defer { s.waiter = nil }
            return s.pending.isEmpty ? s.waiter : nil
        }
        waiter?.resume(returning: nil)
    }

    fileprivate func next() async -> SpeechResult? {
        await withCheckedContinuation { c in
            let ready = state.withLock { s -> SpeechResult?? in
                if !s.pending.isEmpty { return .some(s.pending.removeFirst()) }
                if s.finished { return .some(nil) }
                s.waiter = c
                return .none
            }
            if let ready { c.resume(returning: ready) }
        }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let results: SpeechResults
        public mutating func next() async -> SpeechResult? { await results.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(results: self) }
}
