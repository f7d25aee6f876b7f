import AudioGraphClient
import AudioGraphConversation
import AudioGraphCore
import Foundation

/// The remote recognizer's two workers: the sender thread, which sends what the render thread
/// puts in the ring to the current session, and the receiver task, which takes the session's
/// events for delivery and, with live input, starts a session again when one ends mid-run.
extension RemoteRecognizer {
    func startTasks(_ first: RemoteRecognitionSession) {
        current.withLock { $0 = first }
        let ring = self.ring
        let readiness = renderReady
        let wake = eventsReady
        let box = UncheckedSendable(self)
        sender.start { worker in
            let node = box.value
            var block = [Float](repeating: 0, count: 1600)
            var pcm = Data(count: 3200)
            while !worker.isStopping {
                guard let s = node.current.withLock({ $0 }) else {
                    // Live input, a session being started again: the ring keeps what comes.
                    if node.inputEnded.load(ordering: .acquiring) { break }
                    worker.wake.wait(timeout: 0.1) { worker.isStopping || node.current.withLock { $0 != nil } }
                    continue
                }
                let n = block.withUnsafeMutableBufferPointer { ring.read(interleaved: $0.baseAddress!, frames: 1600) }
                if n > 0 {
                    readiness.signal()
                    node.taken.add(n, ordering: .relaxed)
                    PCM16.encode(block[0..<n], into: &pcm)
                    do {
                        try s.appendNow(pcm: pcm)
                    } catch {
                        guard node.isLive else { break }  // file input: the receiver reports it
                        node.unsent.add(n, ordering: .relaxed)
                        node.current.withLock { if $0 === s { $0 = nil } }
                    }
                    continue
                }
                if node.inputEnded.load(ordering: .acquiring) && ring.available == 0 { break }
                worker.wake.wait(timeout: 0.5) { ring.available > 0 || node.inputEnded.load(ordering: .acquiring) || worker.isStopping }
            }
            if let s = node.current.withLock({ $0 }) { try? blocking { try await s.stop() } }
            node.sent.signal()
        }
        receiver = Task.detached { [self] in
            var session = first
            var origin = SessionOrigin()
            var utterances = 0
            var listening = false  // after a wake word, before the command's end (assistant mode)
            while true {
                var fault: (any Error)?
                do {
                    for try await e in session.events {
                        switch e {
                        case .final(let r): utterances = max(utterances, r.utterance + origin.utterances)
                        case .partial(let u, _): utterances = max(utterances, u + origin.utterances)
                        case .assistant(let state, _, _): listening = state == AssistantState.listening.rawValue
                        default: break
                        }
                        if let event = Self.convert(e, from: origin) {
                            pending.withLock { $0.append(event) }
                            wake.signal()  // the delivery thread takes it now, not at its next round
                        }
                    }
                } catch {
                    fault = error
                }
                // Live input goes on: a session the server ended or lost (a restart, a drain,
                // its session limit, a proxy) is started again, and the run with it.
                guard isLive, !inputEnded.load(ordering: .acquiring), !Task.isCancelled else {
                    if let fault {
                        failed.store(true, ordering: .releasing)
                        pending.withLock { $0.append(.error(server.failure(fault))) }
                    }
                    break
                }
                current.withLock { $0 = nil }
                let why = (fault as? RemoteError)?.message ?? fault.map { "\($0)" } ?? "the server ended the session"
                pending.withLock { $0.append(.warning(node: "", message: "speech server \(server.url): \(why); connecting again (the first 5 s said meanwhile are kept for it)")) }
                if listening {
                    // The command went with the session, and the next one waits for the wake
                    // word: the graph's earcons and state say so (`lost`), not "listening" on.
                    listening = false
                    pending.withLock { $0.append(.assistant(node: "", state: .waitingForWakeWord, reason: .lost, t: streamSeconds)) }
                }
                wake.signal()
                guard let next = await startAgain() else { break }
                origin = SessionOrigin(seconds: streamSeconds, utterances: utterances)
                session = next
                current.withLock { $0 = next }
                sender.wake.signal()
                pending.withLock { $0.append(.warning(node: "", message: "speech server \(server.url): connected again")) }
                wake.signal()
            }
            received.store(true, ordering: .releasing)
            wake.signal()
            done.signal()
        }
    }

    /// Seconds of the run's input so far: what was taken for a session, and what a full ring lost.
    private var streamSeconds: Double {
        Double(taken.load(ordering: .relaxed) + lost.load(ordering: .relaxed)) / Double(options.sampleRate)
    }

    /// A new session of the same options, tried with backoff (0.25 s doubling to 2 s) until
    /// one starts or the input ends.
    private func startAgain() async -> RemoteRecognitionSession? {
        var delay = 0.25
        while !inputEnded.load(ordering: .acquiring) && !Task.isCancelled {
            let s = RemoteRecognitionSession(server.endpoint, options: options)
            if (try? await s.start()) != nil { return s }
            try? await Task.sleep(for: .seconds(delay))
            delay = min(delay * 2, 2)
        }
        return nil
    }
}
