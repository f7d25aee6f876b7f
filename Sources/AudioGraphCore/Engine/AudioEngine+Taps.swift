import Synchronization

/// Taps: installing and removing them (control thread), draining them (delivery thread).
/// A tap point's slots go free → active → removed → free (`TapPoint.Slot.State`).
extension AudioEngine {
    /// Installs a tap on `node`'s output `bus` that receives buffers of `bufferSize` frames,
    /// in the bus format or, with `format`, another channel count (the rate must be the
    /// bus's: put a resampler node in the graph to tap another rate). Works before and
    /// during a run (after `prepare`). Throws when the bus does not exist, the format cannot
    /// be delivered, or the bus already has its most taps (4).
    @discardableResult
    public func installTap(onNode node: String, bus: Int = 0, bufferSize: Int, format: StreamFormat? = nil,
                           block: @escaping @Sendable (AudioBuffer) -> Void) throws(GraphError) -> Tap {
        guard let plan else {
            throw GraphError(.unknownNode, "prepare the engine before installing taps", node: node)
        }
        guard let step = plan.stepById[node] else {
            throw GraphError(.unknownNode, "no such node to tap", file: graph.description.file, node: node)
        }
        guard bus >= 0, bus < step.outputs.count else {
            throw GraphError(.busOutOfRange, "output bus \(bus) out of range (node has \(step.outputs.count))",
                             file: graph.description.file, node: node)
        }
        guard bufferSize > 0, bufferSize <= 1 << 24 else {
            throw GraphError(.badParameterValue, "tap buffer size must be 1...16777216 frames, got \(bufferSize)", node: node)
        }
        let point = step.taps[bus]
        if let format {
            guard format.sampleRate == point.format.sampleRate else {
                throw GraphError(.formatMismatch, "tap format \(format) differs in rate from the bus (\(point.format))",
                                 node: node, suggestion: "add a resampler node and tap its output")
            }
            guard (1...StreamFormat.maxChannels).contains(format.channelCount) else {
                throw GraphError(.formatMismatch, "tap channel count \(format.channelCount) out of range", node: node)
            }
        }
        let tap = Tap(node: node, bus: bus, bufferSize: bufferSize, format: format, point: point,
                      policy: plan.isLive ? .drop : .block, block: block)
        // Under the engine's lock: two threads installing at once would take the same free
        // slot, and one tap would never hear a block.
        let installed = lock.withLock { shared -> Bool in
            guard let slot = point.slots.first(where: { $0.state == .free }) else { return false }
            slot.tap = tap
            shared.taps.append(tap)
            point.activate(slot)
            return true
        }
        guard installed else {
            throw GraphError(.busAlreadyConnected, "bus \(bus) already has \(TapPoint.slotCount) taps", node: node)
        }
        tapCount.add(1, ordering: .relaxed)
        return tap
    }

    /// Removes a tap; buffers already taken from the audio path are still delivered.
    public func removeTap(_ tap: Tap) {
        guard let step = plan?.stepById[tap.node] else { return }
        let point = step.taps[tap.bus]
        lock.withLock { _ in
            for slot in point.slots where slot.state == .active && slot.tap === tap {
                tap.queue.abandoned.store(true, ordering: .relaxed)
                point.remove(slot)
            }
        }
    }

    /// Delivers queued tap audio; frees removed taps once drained. Delivery thread.
    @discardableResult
    func drainTaps(flush: Bool) -> Bool {
        guard let plan else { return false }
        var worked = false
        for step in plan.steps {
            for point in step.taps {
                for slot in point.slots {
                    let state = slot.state
                    guard state != .free, let tap = slot.tap else { continue }
                    if tap.drain() { worked = true }
                    if state == .removed || flush { tap.flush() }
                    if state == .removed {
                        // The render thread may have read the slot as active in the block
                        // under way: free it only once that block is over (or nothing runs).
                        let blocks = blockCount.load(ordering: .acquiring)
                        if slot.removedAt < 0 { slot.removedAt = blocks }
                        let running = phase.load(ordering: .acquiring) == Phase.running.rawValue
                        guard !running || blocks >= slot.removedAt + 2 else { continue }
                        slot.removedAt = -1
                        slot.tap = nil
                        slot.set(.free)
                        lock.withLock { $0.taps.removeAll { $0 === tap } }
                        tapCount.subtract(1, ordering: .relaxed)
                    }
                }
            }
        }
        return worked
    }
}
