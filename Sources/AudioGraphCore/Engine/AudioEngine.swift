import Foundation
import Synchronization

/// Runs a graph: compiles it, renders it on a thread of its own, and reports events and
/// tapped audio on a delivery thread.
///
///     control thread          render thread                delivery thread
///     start/stop/cancel ──►   renderBlock() per block ──►  events ─► onEvent / events stream
///     installTap          ──► BlockQueue (SPSC, bounded) ──► tap blocks in client sizes
///
/// File-fed graphs render as fast as they can (or paced to real time with
/// `Options.realtime`); both produce identical audio and events. With live input the
/// device paces the graph and full queues drop and count instead of waiting.
///
/// ```swift
/// let engine = try AudioEngine(graph: description, registry: .builtin)
/// try engine.prepare()
/// let tap = try engine.installTap(onNode: "gain", bufferSize: 4096) { buffer in
///     print(buffer.time, buffer.frameLength)
/// }
/// let reason = try await engine.run()
/// ```
public final class AudioEngine: @unchecked Sendable {
    /// How the engine runs.
    public struct Options: Sendable {
        /// Frames each source produces per block.
        public var blockFrames: Int = 1024
        /// Pace file input to real time instead of running as fast as possible.
        public var realtime: Bool = false
        /// Capacity of the event ring, in events.
        public var eventCapacity: Int = 4096
        /// Called on the render thread just before the first block and just after the
        /// last, around nothing but rendering (benchmarks count allocations between them).
        public var renderWillStart: (@Sendable () -> Void)?
        /// Called on the render thread after its last block (tests and benchmarks).
        public var renderDidEnd: (@Sendable () -> Void)?
        /// Seconds a file run waits for a node that is not ready before it ends with an error
        /// naming it (tests shorten it).
        package var readyPatience = RenderPlan.defaultReadyPatience
        /// Seconds a file run in lockstep waits for delivery that makes no progress before it
        /// renders on and warns (tests shorten it).
        package var lockstepPatience = AudioEngine.defaultLockstepPatience

        /// Options with `blockFrames` per source block, paced to real time when `realtime`.
        public init(blockFrames: Int = 1024, realtime: Bool = false) {
            self.blockFrames = blockFrames
            self.realtime = realtime
        }
    }

    /// The validated graph this engine runs.
    public let graph: ValidatedGraph
    /// The options the engine was made with.
    public let options: Options

    // Module-internal rather than private: the delivery loop (AudioEngine+Delivery.swift)
    // shares this state.
    var plan: RenderPlan?
    var outlet: EventOutlet
    let phase = Atomic<Int>(Phase.idle.rawValue)
    let stopRequested = Atomic<Bool>(false)
    let cancelRequested = Atomic<Bool>(false)
    let pauseRequested = Atomic<Bool>(false)
    let clockFrames = Atomic<Int>(0)
    /// Stream time of the last block rendered whole (bits of a Double): events up to it are queued.
    /// Minus infinity before the first block: a lagging node's events at stream time 0 wait
    /// behind the render thread's first state marker.
    let renderedThrough = Atomic<UInt64>((-Double.infinity).bitPattern)
    let blockCount = Atomic<Int>(0)
    /// Stream time through which every event has been delivered to observers (bits of a
    /// Double), and whether file input waits for it (``awaitDelivery(before:)``).
    let deliveredThrough = Atomic<UInt64>((-Double.infinity).bitPattern)
    var lockstep = false
    /// Stream time through which the nodes working behind the audio have reported (bits of
    /// a Double; infinity once they have all finished), as the delivery thread last saw it.
    let laggingThrough = Atomic<UInt64>((-Double.infinity).bitPattern)
    /// Wakes the render thread waiting in lockstep: the delivery thread after it delivered further.
    let deliveredWake = Wakeup()
    /// The engine's two threads, started and joined as every thread of the engine and its nodes.
    let renderThread = WorkerThread(name: "audiograph.render", interactive: true)
    let deliveryThread = WorkerThread(name: "audiograph.delivery")
    /// Wakes the render thread waiting for a node that is not ready (``FlowStatus/notReady``).
    let renderReady = Readiness()
    /// Times the render thread gave up waiting for delivery in lockstep (a node working
    /// behind the audio stopped reporting); 0 in a healthy run.
    let lockstepStalls = Atomic<Int>(0)
    /// Render thread: where delivery stood when the render thread last gave up on it; until
    /// it moves on from there, the next blocks do not wait again (one patience per stall).
    var lockstepStalledAt = Double.nan
    /// Wakes the delivery thread: the render thread after a block that queued events or
    /// tap audio, nodes' own threads when they have events.
    let deliveryWake = Wakeup()
    let tapCount = Atomic<Int>(0)
    /// Broadcast once the end reason is set, for threads blocked in `waitUntilEnded`.
    let endedCondition = MonotonicCondition()
    /// Broadcast whenever `deliveredThrough` moves (delivery thread), for any number of
    /// threads waiting on it with ``waitForDelivery(through:idle:timeout:)``.
    let deliveryCondition = MonotonicCondition()
    let lock = Locked<Shared>(Shared())
    /// Held by `prepare`, `start` and `reset` for their whole work: the engine is Sendable, and
    /// two of them at once compiled two plans (the second's sinks refused the files the first's
    /// had claimed) or reset every node twice. Never taken by the render or delivery thread.
    let setup = NSLock()
    var finishErrors: [EngineError] = []  // render thread writes before the end marker
    /// The run's event stream; `reset()` makes a new one, the last run's having finished.
    /// Replaced only while no run is in progress (no delivery thread reads it then).
    var eventStream: AsyncStream<EngineEvent>
    let streamWanted = Atomic<Bool>(false)
    var eventContinuation: AsyncStream<EngineEvent>.Continuation

    struct Shared {
        var handler: (@Sendable (EngineEvent) -> Void)?
        var waiters: [CheckedContinuation<EndReason, Never>] = []
        var taps: [Tap] = []
        var endReason: EndReason?
        /// The reason of the end the delivery thread is delivering (its last events), before
        /// `endReason` is set for everyone.
        var ending: EndReason?
    }

    enum Phase: Int { case idle, prepared, running, ended }

    /// Makes an engine for a validated graph. Nothing is opened until `prepare()`.
    public init(graph: ValidatedGraph, options: Options = Options()) {
        self.graph = graph
        self.options = options
        outlet = EventOutlet(capacity: options.eventCapacity, policy: graph.isLive ? .drop : .block)
        (eventStream, eventContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(4096))
    }

    /// Validates `graph` against `registry` and makes an engine for it.
    /// Throws ``GraphErrors`` listing every problem.
    public convenience init(graph: GraphDescription, registry: NodeRegistry, options: Options = Options()) throws(GraphErrors) {
        switch GraphValidator.validate(graph, registry: registry) {
        case .success(let g): self.init(graph: g, options: options)
        case .failure(let errors): throw errors
        }
    }

    // MARK: Set-up

    /// Opens files and devices, negotiates formats and allocates every buffer.
    /// Throws `GraphError` (formats cannot work) or `EngineError` (a file or device failed).
    public func prepare() throws {
        setup.lock()
        defer { setup.unlock() }
        try prepareHeld()
    }

    /// ``prepare()`` with `setup` held.
    private func prepareHeld() throws {
        guard plan == nil else { return }
        plan = try RenderPlan.compile(graph, blockFrames: options.blockFrames, events: outlet, eventsReady: deliveryWake,
                                      renderReady: renderReady)
        plan!.readyPatience = options.readyPatience
        plan!.waitInterrupted = { [unowned self] programFed in
            self.cancelRequested.load(ordering: .relaxed) || programFed && self.stopRequested.load(ordering: .relaxed)
        }
        lockstep = !graph.isLive && plan!.steps.contains { $0.node.observesEvents }
        phase.store(Phase.prepared.rawValue, ordering: .releasing)
    }

    /// Output format of a node's bus, once prepared.
    public func format(ofNode id: String, bus: Int = 0) -> StreamFormat? {
        guard let s = plan?.stepById[id], bus >= 0, bus < s.outputs.count else { return nil }
        return s.outputs[bus].format
    }

    /// The node with this id, once prepared (e.g. a `speech-synth` to speak through).
    public func node(_ id: String) -> (any AudioNode)? { plan?.stepById[id]?.node }

    /// The first node of type `T`, once prepared.
    public func firstNode<T: AudioNode>(of type: T.Type) -> T? {
        plan?.steps.lazy.compactMap { $0.node as? T }.first
    }

    /// Total length of the clock source in seconds, when known (file input).
    public var duration: Double? {
        guard let c = plan?.clock, let n = c.node.durationFrames, let f = c.outputs.first?.format else { return nil }
        return f.seconds(n)
    }

    /// Blocks rendered so far (the clock source's blocks). Any thread.
    public var blocksRendered: Int { blockCount.load(ordering: .relaxed) }

    /// Stream time the clock source has reached, in seconds. Any thread.
    public var position: Double {
        guard let f = plan?.clock?.outputs.first?.format else { return 0 }
        return Double(clockFrames.load(ordering: .relaxed)) / f.sampleRate
    }

    /// Called for every event, in stream order, on the delivery thread. Set before `start`.
    /// Nothing is delivered while it runs, so it must not wait for the run's end: there,
    /// `waitUntilEnded(timeout:)` answers at once, and `reset()` throws (reset once
    /// `ended()` has returned). `stop()`, `cancel()` and `removeTap` may be called from it.
    public func setEventHandler(_ handler: @escaping @Sendable (EngineEvent) -> Void) {
        lock.withLock { $0.handler = handler }
    }

    /// Every event of the run, in stream order (the newest 4096 are kept while the reader
    /// lags); it finishes when the run ends. After ``reset()`` it is a new stream for the next
    /// run. Events are only buffered once this has been asked for, so a run driven by
    /// `setEventHandler` alone keeps nothing.
    public var events: AsyncStream<EngineEvent> {
        streamWanted.store(true, ordering: .releasing)
        return eventStream
    }

    // MARK: Running

    /// Starts rendering (preparing first if needed). Throws if already started.
    public func start() throws {
        setup.lock()
        defer { setup.unlock() }
        try prepareHeld()
        guard phase.compareExchange(expected: Phase.prepared.rawValue, desired: Phase.running.rawValue,
                                    ordering: .acquiringAndReleasing).exchanged
        else {
            throw EngineError(.internalLimit, "engine already started; reset() it to run again")
        }
        let box = UncheckedSendable(self)
        renderThread.start { _ in box.value.renderLoop() }
        deliveryThread.start { _ in box.value.deliveryLoop() }
    }

    /// Starts, then waits for the run to end.
    public func run() async throws -> EndReason {
        try start()
        return await ended()
    }

    /// Ends the audio: sources stop, what they produced drains through the graph, sinks
    /// finish, and the run ends with reason `stopped`.
    public func stop() { stopRequested.store(true, ordering: .releasing) }

    /// Ends at once: pending audio is discarded and the run ends with reason `cancelled`.
    public func cancel() {
        cancelRequested.store(true, ordering: .releasing)
        outlet.abandon.store(true, ordering: .relaxed)
        // Also once the sources have ended: a decoder may still be working through its queue.
        for step in plan?.steps ?? [] { step.node.abandon() }
        lock.withLock { for t in $0.taps { t.queue.abandoned.store(true, ordering: .relaxed) } }
    }

    /// Holds rendering (and pacing) until `resume()`.
    public func pause() { pauseRequested.store(true, ordering: .releasing) }

    /// Continues after `pause()`.
    public func resume() { pauseRequested.store(false, ordering: .releasing) }

    /// Rewinds an ended engine to stream time 0 so it can run again (files are reread); the
    /// last run's errors go with it. Does nothing on an engine prepared and not yet run;
    /// throws on one that is running or was never prepared.
    public func reset() throws(EngineError) {
        if phase.load(ordering: .acquiring) == Phase.prepared.rawValue { return }
        if deliveryThread.isCurrent {
            throw EngineError(.state, "reset: called from the engine's event handler or a tap, which run on its delivery "
                              + "thread: reset once `ended()` has returned, from another thread or task")
        }
        setup.lock()
        defer { setup.unlock() }
        // Read again with `setup` held: another thread's reset may have finished meanwhile.
        let now = phase.load(ordering: .acquiring)
        if now == Phase.prepared.rawValue { return }
        guard now == Phase.ended.rawValue, let plan else {
            throw EngineError(.state, now == Phase.running.rawValue
                ? "reset: the engine is running (stop or cancel it and await its end first)"
                : "reset: the engine has not been prepared")
        }
        renderThread.join()  // both have ended with the run: nothing of it runs on
        deliveryThread.join()
        finishErrors.removeAll()
        for step in plan.steps {
            step.node.reset()
            step.rewind()
        }
        plan.failure = nil
        plan.sourceFailure = nil
        stopRequested.store(false, ordering: .relaxed)
        cancelRequested.store(false, ordering: .relaxed)
        clockFrames.store(0, ordering: .relaxed)
        renderedThrough.store((-Double.infinity).bitPattern, ordering: .relaxed)
        deliveredThrough.store((-Double.infinity).bitPattern, ordering: .relaxed)
        laggingThrough.store((-Double.infinity).bitPattern, ordering: .relaxed)
        lockstepStalls.store(0, ordering: .relaxed)
        lockstepStalledAt = .nan
        // The last run finished its stream: the next run's events go to a new one.
        (eventStream, eventContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(4096))
        outlet = EventOutlet(capacity: options.eventCapacity, policy: graph.isLive ? .drop : .block)
        for step in plan.steps { step.io.events = outlet }
        lock.withLock { $0.endReason = nil; $0.ending = nil }
        phase.store(Phase.prepared.rawValue, ordering: .releasing)
    }
}
