import Foundation

/// The render thread.
extension AudioEngine {

    /// The render thread: every node once per block, paced to real time when asked, until
    /// the sources have ended (or a stop, cancel, failure or a node's end request); then the
    /// nodes finish and the end marker goes out behind every event.
    func renderLoop() {
        guard let plan else { return }
        let outlet = self.outlet
        _ = outlet.emit(EngineMarker.event(state: .listening))
        let paced = options.realtime && !plan.isLive
        var startTime = monotonicSeconds()
        var reason = EndReason.endOfInput
        var stopping = false
        var requested: EndReason?
        options.renderWillStart?()
        while true {
            if cancelRequested.load(ordering: .acquiring) {
                reason = .cancelled
                break
            }
            if !stopping && stopRequested.load(ordering: .acquiring) {
                stopping = true
                plan.endSources()
            }
            if pauseRequested.load(ordering: .acquiring) {
                let pausedAt = monotonicSeconds()
                _ = outlet.emit(EngineMarker.event(state: .paused))
                deliveryWake.signal()
                for s in plan.steps where s.role == .source { s.node.setPaused(true) }
                while pauseRequested.load(ordering: .acquiring) && !cancelRequested.load(ordering: .acquiring)
                    && !stopRequested.load(ordering: .acquiring)
                {
                    Backoff.idle()
                }
                startTime += monotonicSeconds() - pausedAt
                for s in plan.steps where s.role == .source { s.node.setPaused(false) }
                _ = outlet.emit(EngineMarker.event(state: .listening))
                continue
            }
            if lockstep && !stopping {
                if let end = plan.heardInputEnd {
                    // The input has ended: before the answering source's next block, every
                    // event about it and about what was rendered since, delivered (how much it
                    // plays after the input then does not depend on the decoder's speed).
                    // After the patience without progress (a decoder's long last pass on a loaded
                    // machine) rendering goes on, as every lockstep give-up does (warned).
                    awaitDelivery(through: plan.streamSeconds, laggingPast: end + 1e-6)
                } else {
                    awaitDelivery(before: plan.streamSeconds, given: plan.givenThrough)
                }
            }
            holdBackForLaggingNodes()
            if !plan.renderBlock(delivered: Double(bitPattern: deliveredThrough.load(ordering: .acquiring))) {
                reason = .error
                break
            }
            if let c = plan.clock { clockFrames.store(Int(c.produced[0]), ordering: .relaxed) }
            let rendered = plan.clock == nil ? Double.infinity : plan.streamSeconds
            renderedThrough.store(rendered.bitPattern, ordering: .releasing)
            let blocks = blockCount.add(1, ordering: .relaxed).newValue
            // Tapped audio wakes the delivery thread every block when paced, every 4th when
            // rendering as fast as possible (tap queues hold 16+ blocks): a wake-up per block
            // cost more than the vad itself.
            if outlet.ring.count > 0 || (tapCount.load(ordering: .relaxed) > 0 && (paced || plan.isLive || blocks & 3 == 0)) {
                deliveryWake.signal()
            }
            if plan.sourceFailure != nil && !stopping {
                // A source failed: stop the others and let the graph drain what it has.
                stopping = true
                plan.endSources()
            }
            let request = outlet.endRequest.load(ordering: .relaxed)
            if request > 0 && !stopping {
                stopping = true
                requested = EngineMarker.reasons[request - 1]
                plan.endSources()
            }
            if plan.isFinished {
                reason = requested ?? (stopping ? .stopped : .endOfInput)
                break
            }
            if paced {
                let ahead = plan.streamSeconds - (monotonicSeconds() - startTime)
                if ahead > 0.0005 { usleep(UInt32(min(ahead, 1) * 1e6)) }
            }
        }
        options.renderDidEnd?()
        if let (step, code) = plan.failure ?? plan.sourceFailure {
            finishErrors.append(step.node.failure(code).atNode(step.id, graph: graph.description.file))
        }
        if let step = plan.stalled {
            finishErrors.append(EngineError(.internalLimit, "waited \(plan.readyPatience.formatted()) s for what it needs to "
                                            + "go on (its worker or decoder stopped); the run ends").atNode(step.id, graph: graph.description.file))
        }
        if plan.sourceFailure != nil && reason == .stopped {
            reason = .endOfInput  // the graph drained normally: sinks deliver what they have
        }
        for step in plan.steps {
            do { try step.node.finish(reason) } catch {
                finishErrors.append(error.atNode(step.id, graph: graph.description.file))
                reason = .error
            }
        }
        if !finishErrors.isEmpty { reason = .error }
        if reason != .error && cancelRequested.load(ordering: .acquiring) { reason = .cancelled }  // while nodes finished
        outlet.abandon.store(false, ordering: .relaxed)
        while !outlet.ring.push(EngineMarker.event(end: reason)) { Backoff.pause() }
        deliveryWake.signal()
    }
}
