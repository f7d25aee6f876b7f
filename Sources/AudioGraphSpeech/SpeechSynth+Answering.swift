import AudioGraphConversation
import AudioGraphCore
import Synchronization

/// What a `speech-synth` does on the delivery thread: turns its raw events into public ones,
/// and answers what the graph heard (replies, an assistant's earcons, barge-in).
extension SpeechSynth {
    public func publicEvent(_ raw: NodeEvent, nodeId: String) -> EngineEvent? {
        let id = Int(raw.values.0)
        let earcon = raw.code & Self.earconFlag != 0, cancelled = raw.code & Self.cancelledFlag != 0
        switch raw.kind {
        case Self.speakStart where earcon:
            let e = earconIds.withLock { $0[id] }
            return .earcon(node: nodeId, name: e?.rawValue ?? "?", t: raw.t)
        case Self.speakEnd where earcon:
            finished(id, played: !cancelled)
            return nil
        case Self.speakStart:
            return .speakStart(node: nodeId, id: id, text: texts.withLock { $0[id] } ?? "", t: raw.t)
        case Self.speakEnd:
            if !cancelled { played.add(1, ordering: .releasing) }
            finished(id, played: !cancelled)
            return .speakEnd(node: nodeId, id: id, t: raw.t, cancelled: cancelled)
        case Self.speaking:
            return .assistant(node: nodeId, state: .speaking, reason: nil, t: raw.t)
        case Self.doneSpeaking:
            return .assistant(node: nodeId, state: .waitingForWakeWord, reason: nil, t: raw.t)
        case Self.bargedIn:
            return .bargeIn(node: nodeId, t: raw.t)
        default:
            return raw.standardEvent(nodeId: nodeId)
        }
    }

    public var observesEvents: Bool { true }

    /// A warning for answers and earcons dropped since the last one: the queue was full (more
    /// finals came than could be spoken). Delivery thread, after the observation that dropped them.
    public func takeEvents(nodeId: String) -> [EngineEvent] {
        // How many were dropped since `reported`, which moves up to them.
        func since(_ dropped: borrowing Atomic<Int>, _ reported: inout Int) -> Int {
            let now = dropped.load(ordering: .relaxed)
            defer { reported = now }
            return now - reported
        }
        var out: [EngineEvent] = []
        let full = "its queue (\(queueCapacity)) was full (raise the node's queue"
        let answers = since(droppedAnswers, &reportedDrops)
        if answers > 0 {
            out.append(.warning(node: nodeId, message: "\(answers) \(answers == 1 ? "answer was" : "answers were") not spoken: "
                                + full + ", or answer fewer results)"))
        }
        let earcons = since(droppedEarcons, &reportedEarconDrops)
        if earcons > 0 {
            out.append(.warning(node: nodeId, message: "\(earcons) \(earcons == 1 ? "earcon was" : "earcons were") not played: " + full + ")"))
        }
        return out
    }

    /// Answers the final results of the recognizers connected to its `text` input with the
    /// `reply` template and plays the earcons of their assistant states; with `barge-in`,
    /// stops speaking when speech starts (any vad's), plays the cancel earcon and reports the
    /// speech's onset (`barge-in` event), which a recognizer connected to its `barge-in` output
    /// decodes as the next command.
    public func observe(_ event: EngineEvent, at stamp: Double) {
        // File input: at a fixed delay after the event (live: at once, once synthesised).
        let at = isLive || !stamp.isFinite ? 0 : stamp + responseDelay
        if case let (node, .assistant(state, reason, t))? = event.conversation, answers.contains(node) {
            inAssistant.store(true, ordering: .relaxed)
            switch (state, reason) {
            case (.listening, _):
                // Listening to the speech that barged in: the user is already speaking.
                if Double(bitPattern: quietListening.load(ordering: .relaxed)) != t { play(.start, notBefore: at) }
            case (.waitingForWakeWord, .notUnderstood?), (.waitingForWakeWord, .noSpeech?), (.waitingForWakeWord, .lost?):
                play(.error, notBefore: at)
            case (.waitingForWakeWord, .cancelled?): play(.cancel, notBefore: at)
            default: break
            }
            return
        }
        switch event {
        case .final(let node, let result) where answers.contains(node) && (replyTo == nil || replyTo == node):
            guard !result.text.isEmpty else { return }
            if inAssistant.load(ordering: .relaxed) { play(.end, notBefore: at) }
            if let reply {
                do {
                    _ = try enqueue(reply.replacingOccurrences(of: "{text}", with: result.text), notBefore: at)
                } catch {
                    droppedAnswers.add(1, ordering: .relaxed)  // reported as a warning (takeEvents)
                }
            }
        case .speechStart(_, let t, _) where bargeIn:
            guard speakingNow, Double(bitPattern: bargeOnset.load(ordering: .acquiring)).isNaN else { return }
            quietListening.store(t.bitPattern, ordering: .relaxed)
            for id in worker?.cancelAll() ?? [] { finished(id, played: false) }  // texts not yet begun
            bargeAt.store(at.bitPattern, ordering: .relaxed)
            bargeOnset.store(t.bitPattern, ordering: .releasing)  // the render thread cuts the answer at `at`
            play(.cancel, notBefore: at)
        default:
            break
        }
    }
}
