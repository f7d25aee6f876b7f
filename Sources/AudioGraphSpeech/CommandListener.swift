import AudioGraphConversation
import AudioGraphCore
import Synchronization

/// The recognizer's assistant mode (`wake-word`): waits for the wake word, then listens for
/// one command with the node's grammar or language model, then waits again.
///
///     waiting-for-wake-word ──wake word──► listening ──final result──► waiting-for-wake-word
///            │                                 └──no command begins in `command-timeout`──┘
///            └──barge-in: speech cut an answer short──► listening (to that speech)
///
///
/// While it waits, every sample goes to the ``WakeWordSpotter`` and into the utterance
/// decoder's pre-roll (not decoded), so the command, the first utterance that begins after
/// the wake word, is decoded from its lead-in. Phase changes are `assistant` events, and
/// the wake word a `wake` event, stamped with the stream time they were decided at.
/// Decoding thread only, except ``requestCancel()``.
final class CommandListener {
    enum Phase: Equatable {
        case waiting
        /// Listening for a command since the wake word ended at this stream time; `began`:
        /// the command has begun (an utterance is open), so the timeout no longer applies;
        /// `barged`: the command is speech that interrupted an answer (the spotter still
        /// listens: a wake word in it starts the command anew after it).
        case listening(since: Double, began: Bool, barged: Bool = false)
    }

    let nodeId: String
    let spotter: WakeWordSpotter
    /// Seconds after the wake word within which the command must begin.
    let timeout: Double
    private(set) var phase = Phase.waiting
    private let emit: (EngineEvent, Double) -> Void
    private let cancelRequested = Atomic<Bool>(false)

    init(nodeId: String, spotter: WakeWordSpotter, timeout: Double, emit: @escaping (EngineEvent, Double) -> Void) {
        self.nodeId = nodeId
        self.spotter = spotter
        self.timeout = timeout
        self.emit = emit
    }

    var isListening: Bool { phase != .waiting }

    /// Reports the first phase (the run starts waiting for the wake word).
    func start() {
        phase = .waiting
        cancelRequested.store(false, ordering: .relaxed)
        spotter.restart()
        emit(.assistant(node: nodeId, state: .waitingForWakeWord, reason: nil, t: 0), 0)
    }

    /// Drops the command being listened for and waits for the wake word again. Any thread.
    func requestCancel() { cancelRequested.store(true, ordering: .releasing) }

    /// Speech that began at `t` cut the assistant's answer short: it is the next command,
    /// listened to from its onset. Where this thread has not yet reached the onset, the vad's
    /// speech start there opens the utterance as after a wake word; where it has passed it (the
    /// marker went by unheard), the utterance begins at the onset from the pre-roll.
    private func listenToBargeIn(at t: Double, _ utterances: UtteranceDecoder) {
        // Stamped where this thread is (stream order: nothing earlier may follow what it reported).
        emit(.assistant(node: nodeId, state: .listening, reason: nil, t: t), max(t, utterances.position))
        utterances.listening = true
        // The spotter goes on from where it is: it has heard this speech from its onset.
        phase = .listening(since: t, began: true, barged: true)
        if utterances.position > t && !utterances.open { utterances.begin(at: t) }
    }

    /// Takes one block: to the spotter while waiting, to the utterance decoder while listening.
    /// `bargeIn`: the onset of speech that interrupted an answer, handed over with this block
    /// (taken as a command while waiting for the wake word; ignored while one is listened for).
    func take(_ block: AudioBuffer, _ utterances: UtteranceDecoder, bargeIn: Double? = nil) {
        if let t = bargeIn, phase == .waiting { listenToBargeIn(at: t, utterances) }
        switch phase {
        case .waiting:
            cancelRequested.store(false, ordering: .relaxed)
            utterances.listening = false
            utterances.take(block)
            if spotter.take(block.channel(0), block.frameLength) {
                let t = utterances.position
                emit(.wake(node: nodeId, phrase: spotter.phrase, t: t), t)
                emit(.assistant(node: nodeId, state: .listening, reason: nil, t: t), t)
                phase = .listening(since: t, began: false)
                utterances.listening = true
            }
        case .listening(let since, var began, let barged):
            if cancelRequested.exchange(false, ordering: .acquiring) {
                utterances.drop()
                return back(.cancelled, utterances)
            }
            if barged && spotter.take(block.channel(0), block.frameLength) {
                // "hello computer, …" over the answer: a new wake-up. The command is what
                // follows the wake word: at once if the speech goes on, else the next utterance.
                let t = utterances.position
                let goesOn = utterances.phase == .speaking
                utterances.drop()
                emit(.wake(node: nodeId, phrase: spotter.phrase, t: t), t)
                emit(.assistant(node: nodeId, state: .listening, reason: nil, t: t), t)
                if goesOn { utterances.begin(at: t) }
                utterances.take(block)
                phase = .listening(since: t, began: goesOn)
                return
            }
            // `command-timeout` bounds when the command begins, not when it ends: once an
            // utterance has opened, the command's final result (understood or not) ends it.
            began = began || utterances.open && !utterances.tentative
            utterances.take(block)
            guard isListening else { return }  // a final result ended the command
            began = began || utterances.open && !utterances.tentative
            phase = .listening(since: since, began: began, barged: barged)
            if !began && !utterances.open && !utterances.tentative && utterances.position - since >= timeout {
                back(.noSpeech, utterances)
            }
        }
    }

    /// The command's final result was reported: wait for the wake word again.
    func reported(_ result: RecognitionResult, _ utterances: UtteranceDecoder) {
        guard isListening else { return }
        back(result.text.isEmpty ? .notUnderstood : .understood, utterances)
    }

    private func back(_ reason: AssistantState.Reason, _ utterances: UtteranceDecoder) {
        phase = .waiting
        utterances.listening = false  // markers later in the block begin nothing
        spotter.restart()
        let t = utterances.position
        emit(.assistant(node: nodeId, state: .waitingForWakeWord, reason: reason, t: t), t)
    }
}
