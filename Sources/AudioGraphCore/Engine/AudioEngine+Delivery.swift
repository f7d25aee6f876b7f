import Foundation
import Synchronization

/// The delivery thread: events in stream order, then tap audio, until the end.
extension AudioEngine {
    func deliveryLoop() {
        guard let plan else { return }
        let handler = lock.withLock { $0.handler }
        let observers = plan.steps.map(\.node).filter(\.observesEvents)
        func deliver(_ e: EngineEvent, at stamp: Double = .infinity) {
            for o in observers { o.observe(e, at: stamp) }
            handler?(e)
            if streamWanted.load(ordering: .acquiring) { eventContinuation.yield(e) }
        }
        var order = StreamOrder<NodeEvent>()
        /// Takes what nodes running behind the audio have produced since the last call.
        func takeStreamEvents() -> Bool {
            var took = false
            for (i, step) in plan.steps.enumerated() {
                guard let report = step.node.takeStreamEvents(nodeId: step.id) else { continue }
                took = took || !report.events.isEmpty
                order.add(report, from: i)
            }
            return took
        }
        /// Delivers what stream order lets out now (everything, once the run has ended).
        func deliverInOrder(flush: Bool) -> Bool {
            var worked = false
            while let item = order.next(flush: flush) {
                worked = true
                switch item {
                case .lagging(let e, let at):
                    // cancel() discards: nothing a lagging stage reports once it has been
                    // called (a final decoded before it included) reaches anyone.
                    if !cancelRequested.load(ordering: .acquiring) { deliver(e, at: at) }
                case .render(let raw):
                    if let marker = EngineMarker(raw) {
                        if case .state(let s) = marker { deliver(.state(s)) }
                    } else {
                        let step = plan.steps[Int(raw.node)]
                        if let e = step.node.publicEvent(raw, nodeId: step.id) { deliver(e, at: raw.decided) }
                    }
                }
            }
            return worked
        }
        var reportedDrops = 0
        var reportedStalls = 0
        /// A give-up of the lockstep wait, said once each (rare: a node stopped reporting).
        func reportStalls() {
            let stalls = lockstepStalls.load(ordering: .relaxed)
            guard stalls > reportedStalls else { return }
            reportedStalls = stalls
            deliver(.warning(node: nil, message: "file input in lockstep: delivery made no progress for "
                + "\(options.lockstepPatience.formatted()) s, rendering went on without it (\(stalls) time(s)); "
                + "answers may start later than in a live run"))
        }
        while true {
            // In this order: how far the render thread has got (every event of the blocks it
            // covers is then in the ring), lagging nodes' events (a render event about audio a
            // lagging node has consumed was queued before the node was given that audio), the ring.
            order.renderedThrough = Double(bitPattern: renderedThrough.load(ordering: .acquiring))
            var worked = takeStreamEvents()
            var ended: EndReason?
            while let raw = outlet.ring.pop() {
                worked = true
                let marker = EngineMarker(raw)
                if case .end(let reason) = marker {
                    ended = reason
                    break
                }
                order.add(raw, at: marker == nil ? raw.decided : nil)
            }
            if let reason = ended {
                lock.withLock { $0.ending = reason }
                drainTaps(flush: true)
                _ = takeStreamEvents()  // nodes have finished: complete through the end
                _ = deliverInOrder(flush: true)
                deliveredThrough.store(Double.infinity.bitPattern, ordering: .releasing)
                deliveryMoved()
                for step in plan.steps {
                    for e in step.node.takeEvents(nodeId: step.id) { deliver(e) }
                }
                reportStalls()
                let dropped = outlet.dropped.load(ordering: .relaxed)
                if dropped > reportedDrops {
                    deliver(.warning(node: nil, message: "\(dropped) events were dropped (event queue full)"))
                }
                for e in finishErrors { deliver(.error(e)) }
                deliver(.state(.ended))
                deliver(.end(reason))
                eventContinuation.finish()
                phase.store(Phase.ended.rawValue, ordering: .releasing)
                let waiters = lock.withLock { shared in
                    shared.endReason = reason
                    defer { shared.waiters = [] }
                    return shared.waiters
                }
                for w in waiters { w.resume(returning: reason) }
                endedCondition.lock()
                endedCondition.broadcast()
                endedCondition.unlock()
                return
            }
            if deliverInOrder(flush: false) { worked = true }
            // Every event about the audio before this has been delivered (and observed).
            let delivered = min(order.renderedThrough, order.laggingThrough)
            let lagging = order.laggingThrough
            if delivered != Double(bitPattern: deliveredThrough.load(ordering: .relaxed))
                || lagging != Double(bitPattern: laggingThrough.load(ordering: .relaxed))
            {
                laggingThrough.store(lagging.bitPattern, ordering: .relaxed)
                deliveredThrough.store(delivered.bitPattern, ordering: .releasing)
                deliveryMoved()
            }
            if drainTaps(flush: false) { worked = true }
            for step in plan.steps {
                for e in step.node.takeEvents(nodeId: step.id) {
                    worked = true
                    deliver(e)
                }
            }
            reportStalls()
            let dropped = outlet.dropped.load(ordering: .relaxed)
            if dropped > reportedDrops && dropped - reportedDrops >= 100 {
                deliver(.overrun(node: "engine", lost: dropped - reportedDrops))
                reportedDrops = dropped
            }
            // Idle: sleep until the render thread or a node signals; the timeout only
            // bounds how late events that nobody signalled (device reports) can be, or,
            // while events wait for a lagging node, how soon its progress is seen.
            if !worked {
                deliveryWake.wait(timeout: order.isHolding || lockstep ? 0.002 : 0.1) { outlet.ring.count > 0 }
            }
        }
    }
}
