import Foundation
import Synchronization

/// Work a node does behind the audio, on a thread of its own: a decoder, a file writer.
///
/// The stage owns what such a node needs and what the engine needs from it: the bounded
/// queue the render thread copies the node's input into (`write`: no allocation, no lock),
/// the thread and its join, cancellation, and an outbox of events each stamped with the
/// stream time of the audio the worker had consumed, with the watermark `through` (no event
/// stamped earlier will follow). The node hands the outbox to the engine from
/// `AudioNode.takeStreamEvents` (`take()`), and the engine merges it with the render thread's
/// events by the rule written once, in `StreamOrder`: an event goes out after every event
/// about earlier audio.
///
///     render thread             worker thread                        delivery thread
///     write(block) ──queue──►   next() … emit(e, at:) reached(t) ──►  take() → StreamOrder
///     control: start(work) · finish() (joins) · cancel()
///
/// Between pieces of work (a decoder between utterances) the worker can promise more than
/// "through the audio consumed": with `reachedIdle(after:)` it reports nothing before the next
/// speech onset the render thread has queued (the `speechStart` markers it wrote), or, with
/// none queued, before the end of the audio queued, so the engine need not hold other nodes'
/// events back for audio the worker has yet to read.
package final class LaggingStage: @unchecked Sendable {
    /// The blocks the render thread hands over.
    public let queue: BlockQueue
    private let thread: WorkerThread
    private let cancelled = Atomic<Bool>(false)
    private let inputEnded = Atomic<Bool>(false)
    private let outbox = Locked(StreamEvents([], through: -.infinity))
    private let eventsReady: Wakeup
    /// Decision times of the onsets written, for `reachedIdle`; the end of the audio written.
    private let onsets = SPSCQueue<Double>(capacity: 1024)
    private let onsetsLost = Atomic<Bool>(false)
    private let writtenEnd = Atomic<UInt64>(0)
    private var pendingOnset: Double?  // worker thread only
    private var toldInputEnd = false   // worker thread only
    /// The process's work slots for this run (``WorkSlots/limit``), whether the worker holds
    /// one, and since when (worker thread only).
    private var slots: WorkSlots?
    private var holdsSlot = false
    private var slotSince: UInt64 = 0

    /// A stage named `name` (its thread's name) taking blocks of `format` of up to
    /// `maxFrames`, `blockCount` of them queued at most; a full queue waits (`.block`, file
    /// input) or drops and counts (`.drop`, live input). `eventsReady` is signalled for each
    /// event emitted, so the engine delivers it at once.
    public init(name: String, format: StreamFormat, maxFrames: Int, blockCount: Int, policy: BackpressurePolicy,
                eventsReady: Wakeup = Wakeup()) {
        thread = WorkerThread(name: name)
        self.eventsReady = eventsReady
        queue = BlockQueue(format: format, maxFrames: maxFrames, blockCount: blockCount, policy: policy)
    }

    // MARK: render thread

    /// Copies `buffer` (audio and markers) into the queue, silencing what `gate` covers.
    /// Real-time safe.
    public func write(_ buffer: AudioBuffer, silencing gate: (any SilencedSpans)? = nil) {
        // Onsets before their audio: the worker reads `writtenEnd`, then `onsets`.
        for m in buffer.markers where m.kind == .speechStart {
            if !onsets.push(m.decided) { onsetsLost.store(true, ordering: .relaxed) }
        }
        queue.write(buffer, silencing: gate)
        writtenEnd.store(buffer.endTime.bitPattern, ordering: .releasing)
    }

    /// The node's input has ended while the run goes on (other sources still play): the
    /// worker's `next` calls its `onInputEnd` once the queue is drained.
    public func endInput() { inputEnded.store(true, ordering: .releasing) }

    // MARK: control thread

    /// Starts the worker thread running `work`, with `initial` events in the outbox (stamped
    /// as they are), taking turns in `slots` (the process's, ``WorkSlots/limit``, unless
    /// given). Call again after `finish` (and `reset`) for another run.
    package func start(initial: [StreamEvent] = [], slots: WorkSlots? = WorkSlots.limit,
                      _ work: @escaping @Sendable (LaggingStage) -> Void) {
        cancelled.store(false, ordering: .relaxed)
        inputEnded.store(false, ordering: .relaxed)
        onsetsLost.store(false, ordering: .relaxed)
        writtenEnd.store(0, ordering: .relaxed)
        queue.abandoned.store(false, ordering: .relaxed)
        // Onsets a cancelled run left queued lie ahead of the new run's audio: they would promise too much.
        while onsets.pop() != nil {}
        pendingOnset = nil
        toldInputEnd = false
        self.slots = slots
        holdsSlot = false
        outbox.withLock { $0 = StreamEvents(initial, through: -.infinity) }
        let box = UncheckedSendable(self)
        thread.start { _ in
            work(box.value)
            box.value.giveSlotBack()
            box.value.reachedEnd()
        }
    }

    /// No more input: the worker drains the queue, its `next` returns nil, and this waits
    /// until the thread has ended. Not real-time.
    public func finish() {
        thread.requestStop()
        queue.dataReady.signal()
        thread.join()
    }

    /// Drops queued work at once: the worker sees `isCancelled`, a render thread waiting for
    /// queue space stops waiting. Flags only; any thread, also while `finish` waits.
    public func cancel() {
        cancelled.store(true, ordering: .relaxed)
        queue.abandoned.store(true, ordering: .relaxed)
    }

    /// Whether the run was cancelled (the worker drops what it holds).
    public var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    // MARK: worker thread

    /// The next block, waiting for one; nil once `finish` was called and the queue is empty.
    /// Give the block back with `release`. `onInputEnd` runs once, when the input has ended
    /// (`endInput`) and every block of it has been taken; `onIdle` each time the worker is
    /// about to wait for a block while the input goes on (work it may do meanwhile).
    public func next(onInputEnd: () -> Void = {}, onIdle: () -> Void = {}) -> (index: Int32, block: AudioBuffer)? {
        while true {
            if queue.hasData {
                takeSlot()
                if let taken = queue.next() { return (taken.0, taken.1) }
            }
            if thread.isStopping {
                if queue.hasData { continue }  // a block landed after next(): take it
                return nil
            }
            if !toldInputEnd && inputEnded.load(ordering: .acquiring) && !queue.hasData {
                toldInputEnd = true
                onInputEnd()
            }
            if !toldInputEnd && !inputEnded.load(ordering: .acquiring) {
                onIdle()
                if queue.hasData { continue }
            }
            giveSlotBack()
            queue.waitForData(timeout: 0.005)
        }
    }

    /// Holds one of the process's work slots, if it limits them, taking a turn after
    /// ``WorkSlots/quantum`` when others wait.
    private func takeSlot() {
        guard let slots else { return }
        if holdsSlot {
            guard DispatchTime.now().uptimeNanoseconds - slotSince >= WorkSlots.quantum, slots.waiting > 0 else { return }
            slots.release()
        }
        slots.acquire()
        holdsSlot = true
        slotSince = DispatchTime.now().uptimeNanoseconds
    }

    /// Gives the slot back before the worker waits, or ends.
    private func giveSlotBack() {
        if holdsSlot { slots?.release() }
        holdsSlot = false
    }

    /// Gives a block back to the render thread.
    public func release(_ index: Int32) { queue.release(index) }

    /// Reports `event` about the audio consumed up to stream time `at`.
    public func emit(_ event: EngineEvent, at: Double) {
        outbox.withLock { $0.events.append(StreamEvent(at: at, event)) }
        eventsReady.signal()
    }

    /// Every event about the audio before `t` has been emitted.
    public func reached(_ t: Double) {
        let moved = outbox.withLock { o in
            defer { o.through = max(o.through, t) }
            return t > o.through
        }
        if moved { eventsReady.signal() }  // the engine may wait for this progress (lockstep)
    }

    /// Every event of the run has been emitted (the worker may still wait for `finish`).
    public func reachedEnd() {
        reached(.infinity)
        eventsReady.signal()
    }

    /// Having consumed the audio up to `consumed` and holding no work in progress: nothing
    /// will be reported before the next onset written or, with none, the end of the audio
    /// written (see the type's notes).
    public func reachedIdle(after consumed: Double) {
        guard !onsetsLost.load(ordering: .relaxed) else { return reached(consumed) }
        let written = Double(bitPattern: writtenEnd.load(ordering: .acquiring))
        while pendingOnset.map({ $0 < consumed }) ?? true {  // at `consumed` itself: maybe not yet taken
            guard let t = onsets.pop() else {
                pendingOnset = nil
                return reached(max(consumed, written))
            }
            pendingOnset = t
        }
        reached(pendingOnset!)
    }

    // MARK: delivery thread

    /// The events emitted since the last call, oldest first, and the watermark.
    public func take() -> StreamEvents {
        outbox.withLock { o in
            defer { o.events.removeAll(keepingCapacity: true) }
            return o
        }
    }
}
