import AudioGraphConversation
import AudioGraphCore
import Foundation
import Synchronization

/// `pulse-sink`: plays its input on a PulseAudio sink (monitoring, earcons).
///
/// The render thread copies blocks into a lock-free ring that the server's write callback
/// drains; with file input a full ring makes the graph wait (so playback paces the file).
/// Underruns while playing are counted and reported as `underrun` events (frames of silence
/// played instead of audio).
///
/// With live input the graph runs on the capture's clock, and every underrun leaves what
/// follows that much later: the ring fills up by the silence the server played. So the
/// ring holds two seconds (a stalled machine's backlog, an answer rendered in a burst) and
/// the sink gives the delay back in silence: a silent block (peak under -80 dBFS) that
/// arrives while the ring holds more than the target (`latency` plus a block) is left out.
/// Sound is dropped only when the ring is full, counted and reported as `overrun`. The
/// graph's `PlaybackGate` is told of the delay (what the ring holds above the target), so
/// listeners still leave out the echo of a sound that plays late.
public final class PulseSink: AudioNode {
    public static let descriptor = NodeDescriptor(
        type: "pulse-sink",
        summary: "Plays its input on a PulseAudio sink.",
        role: .sink,
        parameters: [
            ParameterSpec("device", .string, help: "sink name (`audiograph devices`); when omitted, the default sink, followed when it changes"),
            ParameterSpec("latency", .number(0.005...2), default: 0.05, unit: "s", help: "target buffering at the server"),
        ],
        controls: [.output("playing", .gate, help: "how late what is played comes out (latency, stalls), for the listeners' gate")],
        make: { p throws(GraphError) in PulseSink(p) })

    let deviceName: String?
    let latency: Double
    private var connection: PulseConnection?
    private var stream: PulseStream?
    private var ring: FrameRing?
    private var device: String?
    private var isLive = false
    private var started = false
    private var prebuffer = 0
    /// Live input: silent blocks are left out while the ring holds more than this.
    private var target = 0
    private var gate: PlaybackGate?
    /// The ring's recent high mark above the target (see `followDelay`).
    private var surplusMark = 0
    private var dropped = 0
    private var reportedDropped = 0
    private var reportedSilence = 0
    private var reportedXruns = 0
    private var rate = 48000.0
    /// Warnings from the control thread (a muted sink at open, a drain that did not complete
    /// in `finish`), delivered by `takeEvents` (delivery thread).
    private let pending = Mutex<[String]>([])
    /// The device the server moved the playback to, until reported (see `PulseStream.movedTo`).
    private let movedTo = Locked<String?>(nil)
    private var reportedDevice: String?  // delivery thread only, once prepared
    /// How long `finish` waits for the server to play what it holds.
    static let drainTimeout = 5.0

    init(_ p: ResolvedParameters) {
        let d = p.string("device")
        deviceName = d == nil || d == "default" ? nil : d
        latency = p.number("latency")
    }

    public func open() throws(EngineError) {
        let c = try PulseConnection(name: "audiograph")
        let sinks = c.devices(sinks: true)
        let wanted = deviceName ?? c.defaults().sink
        guard let sink = sinks.first(where: { $0.name == wanted }) else {
            let names = sinks.map(\.name).joined(separator: ", ")
            throw EngineError(.device, "PulseAudio: no sink named \"\(wanted)\" (available: \(names.isEmpty ? "none" : names))",
                              parameter: "device", suggestion: "`audiograph devices` lists them")
        }
        device = wanted
        connection = c
        if sink.isMuted {
            pending.withLock { $0.append("PulseAudio: sink \"\(wanted)\" is muted at the server, so nothing played is heard: "
                                         + "unmute it in the sound settings or with `pactl set-sink-mute \(wanted) 0`") }
        }
    }

    public func prepare(_ context: PrepareContext) throws(EngineError) {
        guard let connection, let device else { return }
        let f = context.inputFormats[0]
        guard f.sampleRate == f.sampleRate.rounded() else {
            throw EngineError(.device, "PulseAudio: cannot play \(f.sampleRate) Hz")
        }
        isLive = context.isLive
        rate = f.sampleRate
        // File input waits for room, so its ring is only what the graph may run ahead of
        // what is heard; live input cannot wait (see the type's comment).
        let held = max(isLive ? 2 : 0.5, 4 * latency)
        let r = FrameRing(channels: f.channelCount, capacity: max(Int(f.sampleRate * held), 4 * context.maxFrames))
        ring = r
        prebuffer = Int(latency * f.sampleRate)
        target = prebuffer + context.maxFrames
        // What plays now was handed over this long ago (the server's buffer and ours): the
        // graph's listeners leave out its echo for that much longer.
        let gate: PlaybackGate = context.channel(.gate)
        gate.outputLatency = 2 * latency
        self.gate = gate
        // Without a `device` the server chooses (the default, followed when it changes).
        stream = try PulseStream(connection: connection, capture: false, device: deviceName, rate: Int(f.sampleRate),
                                 channels: f.channelCount, latency: latency, ring: r, progressed: context.renderReady,
                                 movedTo: movedTo)
        reportedDevice = stream?.connectedTo ?? device
    }

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        guard let stream, let ring else { return .ok }
        let input = io.inputs[0]
        // File input: playback paces the graph. A block with no room for it yet is not ready
        // (the engine waits for the server to take frames); the ring holds four blocks.
        if !isLive && ring.space < input.frameLength && !stream.failed.load(ordering: .relaxed) {
            if !started { started = true; stream.cork(false) }
            return .notReady
        }
        var offset = 0
        if isLive && started && ring.available > target && Self.isSilent(input) {
            offset = input.frameLength  // left out: the delay given back (not a loss)
        }
        if offset < input.frameLength {
            offset += ring.write(input, from: offset, frames: input.frameLength - offset)
            if offset < input.frameLength {
                if !started { started = true; stream.cork(false) }
                dropped += input.frameLength - offset  // live input cannot wait: counted, reported
            }
        }
        if !started && ring.available >= prebuffer {
            started = true
            stream.cork(false)
        }
        if isLive, let gate { followDelay(gate, surplus: max(0, ring.available - target)) }
        // Report what was lost since the last block: our ring full (live input), the
        // server's buffer run dry (silence played).
        let t = Double(input.sampleTime) / rate
        if dropped > reportedDropped {
            io.emit(NodeEvent(.overrun, t: t, values: (Double(dropped - reportedDropped), 0, 0, 0)))
            reportedDropped = dropped
        }
        let silence = stream.lostFrames.load(ordering: .relaxed), xruns = stream.serverXruns.load(ordering: .relaxed)
        if silence > reportedSilence || xruns > reportedXruns {
            io.emit(NodeEvent(.underrun, t: t, values: (Double(xruns - reportedXruns), Double(silence - reportedSilence), 0, 0)))
            reportedSilence = silence
            reportedXruns = xruns
        }
        if stream.failed.load(ordering: .acquiring) { return .failed(1) }
        return .ok
    }

    public func failure(_ code: Int32) -> EngineError {
        EngineError(.server, "PulseAudio: lost the playback stream to \(connection?.server ?? pulseServerAddress())")
    }

    public func finish(_ reason: EndReason) throws(EngineError) {
        guard let stream else { return }
        if reason != .cancelled && reason != .error {
            if !started { stream.cork(false) }
            if !stream.drain(timeout: Self.drainTimeout) {
                let message = "PulseAudio: sink \"\(device ?? "default")\" had not played what it was given \(Int(Self.drainTimeout)) s "
                    + "after the end (server stalled or stream lost); the end of the audio may be cut"
                pending.withLock { $0.append(message) }
            }
        }
        stream.close()
        self.stream = nil
    }

    /// Tells the gate what the ring holds above the target (`surplus` frames): new sounds
    /// play that much later than the server's own latency. A surplus that rises above its
    /// recent high mark is a stall (the server took nothing, or played silence while the
    /// graph caught up): sounds already queued play that much later too. The mark follows
    /// the surplus down a target behind, so a block pushed before the server's next pull
    /// does not count as a stall.
    private func followDelay(_ gate: PlaybackGate, surplus: Int) {
        if surplus > surplusMark {
            gate.delay(by: Double(surplus - surplusMark) / rate)
            surplusMark = surplus
        } else {
            surplusMark = min(surplusMark, surplus + target)
        }
        gate.outputLatency = 2 * latency + Double(surplus) / rate
    }

    public func takeEvents(nodeId: String) -> [EngineEvent] {
        var events: [EngineEvent] = []
        if let to = movedTo.withLock({ m in defer { m = nil }; return m }), to != reportedDevice {
            events.append(.warning(node: nodeId, message: "PulseAudio: the server moved the playback from \"\(reportedDevice ?? "the default sink")\" "
                                   + "to \"\(to)\" (the device was removed, the default changed, or a user moved the stream)"))
            reportedDevice = to
        }
        for message in pending.withLock({ m in defer { m.removeAll() }; return m }) {
            events.append(.warning(node: nodeId, message: message))
        }
        return events
    }

    /// Whether every sample of `buffer` is under -80 dBFS.
    static func isSilent(_ buffer: AudioBuffer) -> Bool {
        var peak: Float = 0
        for c in 0..<buffer.channelCount {
            let p = buffer.channel(c)
            for i in 0..<buffer.frameLength { peak = max(peak, abs(p[i])) }
        }
        return peak < 1e-4
    }

    /// Frames dropped or not ready when the server asked (underruns), for reports.
    public var lostFrames: Int { (stream?.lostFrames.load(ordering: .relaxed) ?? 0) + dropped }
}
