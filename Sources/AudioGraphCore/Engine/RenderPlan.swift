/// A compiled graph: node instances in processing order with one preallocated buffer per
/// output bus (JUCE's render sequence). Built on the control thread by ``compile``; run one
/// block at a time by ``renderBlock(delivered:)`` on the render thread, which allocates
/// nothing and takes no lock.
///
///     file-source ──► gain ──┬──► wav-sink          steps: [src, gain, out, meter]
///                            └──► level-meter       buffers: src.0, gain.0 (read twice)
package final class RenderPlan {
    let graph: ValidatedGraph
    package let steps: [RenderStep]
    package let stepById: [String: RenderStep]
    /// Frames a source produces per block.
    package var blockFrames: Int
    let isLive: Bool
    /// The first source: its position drives progress and real-time pacing.
    let clock: RenderStep?
    /// The nodes that work behind the audio on threads of their own (recognizers).
    let behind: [RenderStep]
    /// Set by a failing node other than a source: (step, code). Rendering stops at once.
    package var failure: (RenderStep, Int32)?
    /// What the plan waits on when a node is not ready: signalled by the threads that make
    /// nodes ready (decoders, workers, capture, a program pushing audio).
    package let readiness: Readiness
    /// Whether a wait must end now: `programFed` for a node waiting for the program
    /// (``AudioNode/waitsForProgram``). The engine ends every wait on cancel and a program-fed
    /// one on stop (what was pushed then drains). Set by whoever runs the plan.
    package var waitInterrupted: (_ programFed: Bool) -> Bool = { _ in false }
    /// How long a file run waits for a node that is not ready before it fails (a decoder or
    /// file reader that stopped): far longer than any block takes.
    package static let defaultReadyPatience = 30.0
    /// This run's patience (the engine's option).
    package var readyPatience = defaultReadyPatience
    /// How long, with live input, the clock source is waited for in one block (its device's
    /// data); then the block goes on empty and the render loop sees stop and cancel.
    static let liveWait = 0.1
    /// The node that stayed not ready past ``readyPatience``; the run ends with an error.
    var stalled: RenderStep?
    /// Set by the first failing source (a device gone): it ends like a stopped source, so
    /// what it captured still flows through the graph and its results are delivered; the
    /// run then ends with its error.
    var sourceFailure: (RenderStep, Int32)?

    private init(graph: ValidatedGraph, steps: [RenderStep], blockFrames: Int, isLive: Bool, readiness: Readiness) {
        self.readiness = readiness
        self.graph = graph
        self.steps = steps
        self.blockFrames = blockFrames
        self.isLive = isLive
        stepById = Dictionary(uniqueKeysWithValues: steps.map { ($0.id, $0) })
        behind = steps.filter { $0.role != .source && $0.node.worksBehind }
        // A live input sets the pace (a speech-synth beside a microphone follows it).
        let live = Set(graph.nodes.filter { $0.descriptor.isLive }.map(\.id))
        clock = steps.first { $0.role == .source && live.contains($0.id) } ?? steps.first { $0.role == .source }
        // Steps are in stream order: a step fed only by answering sources, or by steps so fed,
        // answers (the speaker); one that also hears the input (an echo canceller taking the
        // answer as its reference) does not.
        var answering: [Bool] = []
        for s in steps {
            answering.append(s.role == .source ? s.node.observesEvents
                             : !s.upstream.isEmpty && s.upstream.allSatisfy { answering[$0.index] })
        }
        answers = answering
    }

    /// By step index: whether the step is an answering source (one that
    /// ``AudioNode/observesEvents``) or fed by such sources only (its speaker).
    private let answers: [Bool]

    /// Frames source `step` is asked for: a block; for a source other than the clock, while
    /// the clock runs, only what brings it level with the clock's stream time (a synth
    /// beside a live capture produces audio at the capture's pace, not a block per cycle).
    private func requestedFrames(_ step: RenderStep) -> Int {
        guard let c = clock, c !== step, !c.ended, let cf = c.outputs.first?.format,
              let f = step.outputs.first?.format else { return blockFrames }
        let due = Int64((Double(c.produced[0]) / cf.sampleRate * f.sampleRate).rounded())
        return Int(max(0, min(Int64(blockFrames), due - step.produced[0])))
    }

    /// Instantiates, opens, negotiates formats and prepares every node.
    /// Throws `GraphError` (the graph cannot work) or `EngineError` (a file or device failed).
    package static func compile(_ validated: ValidatedGraph, blockFrames: Int, events: EventOutlet, eventsReady: Wakeup,
                        renderReady: Readiness) throws -> RenderPlan {
        let n = try NegotiatedGraph(validated, blockFrames: blockFrames)
        let graph = n.graph
        var steps: [Int: RenderStep] = [:]
        var ordered: [RenderStep] = []
        let links = ControlLinks(graph)
        let inputsOf = graph.adjacency.inputs
        let isLive = graph.isLive
        // The markers (speech, end of speech) of everything upstream of each node, built up in
        // processing order from its inputs' own.
        var markersUpstream = [Set<StreamMarker.Kind>](repeating: [], count: graph.nodes.count)
        for i in graph.order {
            let spec = graph.nodes[i]
            let node = n.instances[i]
            let inEdges = inputsOf[i]
            let inFormats = inEdges.map { n.formats[$0.from][$0.fromBus] }
            let inMax = inEdges.map { n.maxFrames[$0.from] }.max() ?? blockFrames
            let upstream = inEdges.map { steps[$0.from]! }
            let inputs = inEdges.map { steps[$0.from]!.outputs[$0.fromBus] }
            let outputs = n.formats[i].map { AudioBuffer(format: $0, frameCapacity: n.maxFrames[i]) }
            var upstreamMarkers = Set<StreamMarker.Kind>()
            for e in inEdges {
                upstreamMarkers.formUnion(markersUpstream[e.from])
                upstreamMarkers.formUnion(graph.nodes[e.from].descriptor.markers)
            }
            markersUpstream[i] = upstreamMarkers
            do {
                try node.prepare(PrepareContext(inputFormats: inFormats, outputFormats: n.formats[i],
                                                maxFrames: spec.descriptor.role == .source ? blockFrames : inMax,
                                                isLive: isLive, upstreamMarkers: upstreamMarkers,
                                                eventsReady: eventsReady, renderReady: renderReady,
                                                links: links, nodeId: spec.id,
                                                controlSources: links.sources(of: spec.id)))
            } catch {
                throw error.atNode(spec.id, graph: graph.description.file)
            }
            let step = RenderStep(index: ordered.count, id: spec.id, node: node, role: spec.descriptor.role,
                                  inputs: inputs, outputs: outputs, upstream: upstream,
                                  forwardsMarkers: spec.descriptor.forwardsMarkers && !inputs.isEmpty, events: events)
            steps[i] = step
            ordered.append(step)
        }
        return RenderPlan(graph: graph, steps: ordered, blockFrames: blockFrames, isLive: isLive, readiness: renderReady)
    }

    /// Whether nothing more will be produced.
    var isFinished: Bool { steps.allSatisfy(\.ended) }

    /// Marks every source ended (end of audio on `stop()`): the rest of the graph drains.
    func endSources() {
        for s in steps where s.role == .source && !s.ended {
            if s.node.drainsOnStop {
                s.stopping = true
            } else {
                s.ended = true
                for o in s.outputs { o.frameLength = 0 }
            }
        }
    }

    /// Runs every node once. Render thread; real-time safe. Returns false on failure.
    package func renderBlock(delivered: Double = .infinity) -> Bool {
        for step in steps {
            if step.ended {
                for o in step.outputs { o.frameLength = 0 }
                continue
            }
            var allEnded = true
            for (k, up) in step.upstream.enumerated() {
                step.inputEnded[k] = up.ended
                allEnded = allEnded && up.ended
            }
            for (b, o) in step.outputs.enumerated() {
                o.frameLength = 0
                o.sampleTime = step.produced[b]
                o.clearMarkers()
            }
            step.io.inputsEnded = step.role != .source && allEnded
            step.io.requestedFrames = step.role == .source ? requestedFrames(step) : blockFrames
            step.io.isStopping = step.stopping
            if step.role == .source && step.node.observesEvents {
                step.io.othersFinished = othersFinished(besides: step, delivered: delivered)
            }
            var mark = readiness.mark()
            var status = step.node.process(&step.io)
            if status == .notReady {
                // Wait here, and only here, for what the node needs. File input: any node,
                // until it is ready. Live input: only the clock source, on its device's data,
                // for at most `liveWait` (so stop and cancel are seen between blocks); any
                // other node not ready produces nothing this block.
                // A node fed by the program (a server's stream) waits as long as it takes.
                let since = monotonicSeconds()
                let patient = step.node.waitsForProgram
                func mayWait() -> Bool { !isLive || step === clock && monotonicSeconds() - since < Self.liveWait }
                while status == .notReady && mayWait() && awaitReady(waitedSince: patient ? nil : since, mark: mark) {
                    mark = readiness.mark()
                    status = step.node.process(&step.io)
                }
                if status == .notReady {
                    if !isLive && !patient && monotonicSeconds() - since >= readyPatience {
                        stalled = step
                        return false
                    }
                    for o in step.outputs { o.frameLength = 0 }  // cancelled, or live input
                    status = .ok
                }
            }
            if step.forwardsMarkers {
                let first = step.inputs[0]
                if first.markerCount > 0 { for o in step.outputs { o.copyMarkers(from: first) } }
            }
            if !step.inputs.isEmpty, step.inputs[0].frameLength > 0 { step.givenThrough = step.inputs[0].endTime }
            var producedAny = false
            for (b, o) in step.outputs.enumerated() where o.frameLength > 0 {
                producedAny = true
                step.produced[b] += Int64(o.frameLength)
                step.taps[b].deliver(o)
            }
            step.lastStatus = status
            switch status {
            case .ok:
                if step.role != .source && allEnded && !producedAny { step.ended = true }
            case .endOfStream:
                step.ended = true
            case .failed(let code) where step.role == .source:
                step.ended = true
                if sourceFailure == nil { sourceFailure = (step, code) }
            case .failed(let code):
                failure = (step, code)
                return false
            case .notReady:
                break  // handled above
            }
        }
        return true
    }

    /// The one place a run waits for a node that returned ``FlowStatus/notReady``, with the
    /// readiness count noted before it was asked: returns when it may be ready (signalled, or
    /// 0.05 s), false to stop waiting (interrupted, or waiting since `waitedSince` for longer
    /// than ``readyPatience``; nil: a node waiting for the program, without a limit).
    private func awaitReady(waitedSince since: Double?, mark: Int) -> Bool {
        if waitInterrupted(since == nil) { return false }
        if let since, monotonicSeconds() - since >= readyPatience { return false }
        readiness.wait(unchangedFrom: mark, timeout: 0.05)
        return true
    }

    /// Whether every source but `step` has ended and the events up to their end have been
    /// delivered (through `delivered`), and every node that reports after its input has ended.
    private func othersFinished(besides step: RenderStep, delivered: Double) -> Bool {
        var end = 0.0
        for s in steps where s !== step && s.node.reportsAfterInput && !s.ended { return false }
        for s in steps where s !== step && s.role == .source {
            guard s.ended else { return false }
            end = max(end, s.producedSeconds)
        }
        return delivered > end + 1e-6  // a lagging node may still report at the end itself
    }

    /// Once every node but those that answer what the graph heard (sources that
    /// ``AudioNode/observesEvents``, and what they feed) has ended (the input has drained
    /// through every node that hears it), while such an answering source still runs: the
    /// stream time the heard sources ended at.
    /// nil otherwise. From then on such a source ends as soon as every event has been
    /// delivered (`othersFinished`); with file input the render thread waits for that
    /// delivery before each block, so how much it plays after the input does not depend on
    /// how fast the decoder finished.
    var heardInputEnd: Double? {
        var end = 0.0, answering = false, heard = false
        for s in steps {
            if answers[s.index] {
                answering = answering || s.role == .source && !s.ended
                continue
            }
            guard s.ended else { return nil }  // what the graph heard is still draining
            guard s.role == .source else { continue }
            heard = true
            end = max(end, s.producedSeconds)
        }
        return answering && heard ? end : nil
    }

    /// Stream time through which every node working behind the audio has been given its
    /// input (infinity without any, or once they have ended): none of them can report about
    /// later audio yet.
    var givenThrough: Double {
        var t = Double.infinity
        for s in behind where !s.ended { t = min(t, s.givenThrough) }
        return t
    }

    /// Seconds of stream time the clock source has produced; once it has ended, the furthest
    /// any source has got (a speech-synth answering after a file ended goes on being paced).
    var streamSeconds: Double {
        guard let c = clock else { return 0 }
        guard c.ended else { return c.producedSeconds }
        return steps.reduce(c.producedSeconds) { t, s in s.role == .source ? max(t, s.producedSeconds) : t }
    }
}
