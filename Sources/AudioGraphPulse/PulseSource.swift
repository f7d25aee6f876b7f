import AudioGraphCore
import Foundation
import Synchronization

/// `pulse-source`: captures from a PulseAudio (or PipeWire-Pulse) source.
///
/// libpulse's threaded main loop delivers fragments of `latency` seconds into a bounded
/// lock-free ring (copy only, no allocation); the render thread takes them out in blocks.
/// Stream time counts captured frames, so timestamps stay exact. On stop the stream is
/// corked and what the server already delivered still goes through the graph. If the
/// server or the device goes away, the audio captured so far is delivered and the run
/// ends with an error.
public final class PulseSource: AudioNode {
    public static let descriptor = NodeDescriptor(
        type: "pulse-source",
        summary: "Captures from a PulseAudio source (microphone, monitor, pipe) with a threaded main loop.",
        role: .source,
        parameters: [
            ParameterSpec("device", .string, help: "source name (`audiograph devices`); when omitted, the default source, followed when it changes"),
            ParameterSpec("rate", .integer(8000...384_000), unit: "Hz", help: "capture rate (default: the device's)"),
            ParameterSpec("channels", .integer(1...8), help: "channel count (default: the device's)"),
            ParameterSpec("latency", .number(0.002...2), default: 0.02, unit: "s", help: "fragment size the server delivers"),
            ParameterSpec("reconnect", .number(0...86400), default: 0, unit: "s",
                          help: "if the server goes away, retry this long for it to come back (0: fail at once); the gap is reported"),
        ],
        isLive: true,
        make: { p throws(GraphError) in PulseSource(p) })

    static let failedCode: Int32 = 1
    static let overrunKind = NodeEvent.Kind(rawValue: 1101)

    let deviceName: String?
    let rate: Int?
    let channels: Int?
    let latency: Double
    let reconnect: Double
    private var reconnector: PulseReconnector?
    private var connection: PulseConnection?
    private var stream: PulseStream?
    private var ring: FrameRing?
    private var device: PulseDevice?
    private var fragmentFrames = 320
    private var started = false
    private var reportedLost = 0
    /// Whether captured samples that were not numbers have been reported (once a run).
    private var reportedNonFinite = false
    /// Warning code: captured samples that were not numbers, replaced by silence.
    static let warningNonFinite: Int32 = 1
    /// Warning code: the capture gave nothing but digital silence for `silenceSeconds`.
    static let warningSilent: Int32 = 2
    /// Unbroken digital silence that is reported (a muted or disconnected microphone).
    static let silenceSeconds = 5.0
    private var silenceWatch = DigitalSilenceWatch(threshold: .max)
    private let info = Locked<[EngineEvent]>([])
    private var nodeId = "mic"
    private let latencyProbe = Atomic<Bool>(false)   // set by the render thread after ~1 s
    private var latencyReported = false               // delivery thread only
    private var probeStream: PulseStream?             // set in prepare, never cleared
    /// The device the server moved the capture to, until reported (see `PulseStream.movedTo`).
    private let movedTo = Locked<String?>(nil)
    private var reportedDevice: String?               // delivery thread only, once prepared
    private var format = StreamFormat(sampleRate: 48000, channelCount: 1)  // as negotiated (prepare)

    init(_ p: ResolvedParameters) {
        nodeId = p.nodeId
        let d = p.string("device")
        deviceName = d == nil || d == "default" ? nil : d
        rate = p["rate"] == nil ? nil : p.integer("rate")
        channels = p["channels"] == nil ? nil : p.integer("channels")
        latency = p.number("latency")
        reconnect = p.number("reconnect")
    }

    public var drainsOnStop: Bool { true }

    /// While the server's queue for the stream is under three quarters full: a graph held
    /// back meanwhile loses nothing (the queue takes 11 s of 48 kHz stereo).
    public var holdsBacklog: Bool {
        guard let stream, !stream.failed.load(ordering: .relaxed) else { return false }
        return stream.backlogBytes.load(ordering: .relaxed) < PulseStream.serverQueueBytes * 3 / 4
    }

    public func open() throws(EngineError) {
        let c = try PulseConnection(name: "audiograph")
        let sources = c.devices(sinks: false)
        let wanted = deviceName ?? c.defaults().source
        guard let d = sources.first(where: { $0.name == wanted }) else {
            let names = sources.map(\.name).joined(separator: ", ")
            if deviceName == nil {
                // PipeWire without a session manager (or a server with no source yet) names
                // "@DEFAULT_SOURCE@" or nothing as its default.
                throw EngineError(.device, "PulseAudio: the server \(c.server) has no default source (available: \(names.isEmpty ? "none" : names))",
                                  parameter: "device",
                                  suggestion: "set the node's device (--set NODE.device=NAME), or make one the default: pactl set-default-source NAME")
            }
            throw EngineError(.device, "PulseAudio: no source named \"\(wanted)\" (available: \(names.isEmpty ? "none" : names))",
                              parameter: "device", suggestion: "`audiograph devices` lists them")
        }
        device = d
        connection = c
    }

    public func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] {
        [StreamFormat(sampleRate: Double(rate ?? device?.rate ?? 48000), channelCount: channels ?? device?.channels ?? 1)]
    }

    public func prepare(_ context: PrepareContext) throws(EngineError) {
        guard let connection, let device else { return }
        let format = context.outputFormats[0]
        self.format = format
        fragmentFrames = max(16, min(context.maxFrames, Int(latency * format.sampleRate)))
        let r = FrameRing(channels: format.channelCount, capacity: Int(format.sampleRate * 2))
        ring = r
        // Without a `device` the server chooses (the default, followed when it changes).
        let st = try PulseStream(connection: connection, capture: true, device: deviceName, rate: Int(format.sampleRate),
                                 channels: format.channelCount, latency: latency, ring: r, progressed: context.renderReady,
                                 movedTo: movedTo)
        stream = st
        probeStream = st
        if reconnect > 0 {
            reconnector = PulseReconnector(
                first: st, target: .init(device: deviceName, rate: Int(format.sampleRate), channels: format.channelCount,
                                         latency: latency, movedTo: movedTo),
                patience: reconnect, ring: r, progressed: context.renderReady)
        }
        silenceWatch = DigitalSilenceWatch(threshold: Int(Self.silenceSeconds * format.sampleRate))
        let id = nodeId, name = st.connectedTo ?? device.name
        reportedDevice = name
        info.withLock {
            $0.append(.device(node: id, name: name, format: format, latency: latency))
            if device.isMuted {
                $0.append(.warning(node: id, message: "PulseAudio: source \"\(name)\" is muted at the server, so it gives silence: "
                                   + "unmute it in the sound settings or with `pactl set-source-mute \(name) 0`"))
            }
        }
    }

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        if let reconnector, reconnector.ready.load(ordering: .acquiring), let fresh = reconnector.takeReplacement() {
            stream = fresh  // the reconnector keeps the old one alive: no teardown here
            reportedLost = 0
        }
        guard let stream, let ring else { return .endOfStream }
        let out = io.outputs[0]
        if let reconnector, stream.failed.load(ordering: .acquiring), ring.available == 0,
           !reconnector.gaveUp.load(ordering: .acquiring)
        {
            // Server gone: the engine waits (it owns waiting) until the reconnector has a
            // stream or gives up; nothing is produced meanwhile.
            reconnector.streamLost()
            return io.isStopping ? .endOfStream : .notReady
        }
        if !started {
            started = true
            stream.cork(false)
        }
        if io.isStopping {
            if ring.available == 0 {
                stream.cork(true)
                return .endOfStream
            }
        } else if ring.available < min(fragmentFrames, io.requestedFrames) && !stream.failed.load(ordering: .acquiring) {
            // Less than a fragment captured: the engine waits for the server's data (the
            // stream signals `renderReady`) and asks again.
            return .notReady
        }
        let n = ring.read(into: out, frames: min(io.requestedFrames, out.frameCapacity))
        out.frameLength = n
        // Float capture: a server or device may deliver NaN; the graph gets silence, and
        // the first block with any is reported.
        for c in 0..<out.channelCount {
            let bad = NonFiniteSamples.replace(out.channel(c), count: n)
            if let first = bad.first, !reportedNonFinite {
                reportedNonFinite = true
                let t = Double(out.sampleTime + Int64(first)) / out.format.sampleRate
                io.emit(NodeEvent(.warning, t: t, values: (0, Double(bad.count), t, 0), code: Self.warningNonFinite))
            }
        }
        if silenceWatch.observe(out) {
            let since = Double(out.sampleTime + Int64(n)) / out.format.sampleRate - silenceWatch.silentSeconds(rate: out.format.sampleRate)
            io.emit(NodeEvent(.warning, t: since, values: (Self.silenceSeconds, since, 0, 0), code: Self.warningSilent))
        }
        // After a second of capture the delivery thread asks the server for the stream's latency.
        let captured = out.sampleTime + Int64(n), second = Int64(out.format.sampleRate)
        if captured >= second && captured - Int64(n) < second { latencyProbe.store(true, ordering: .releasing) }
        let lost = stream.lostFrames.load(ordering: .relaxed) + stream.serverXruns.load(ordering: .relaxed)
        if lost > reportedLost {
            io.emit(NodeEvent(.overrun, t: Double(out.sampleTime) / (Double(rate ?? device?.rate ?? 48000)),
                              values: (Double(lost - reportedLost), 0, 0, 0)))
            reportedLost = lost
        }
        if stream.failed.load(ordering: .acquiring) && ring.available == 0 && n == 0 {
            if let reconnector, !reconnector.gaveUp.load(ordering: .acquiring) { return .ok }  // next block waits for it
            return .failed(Self.failedCode)
        }
        return .ok
    }

    /// Pause corks the stream (the server stops capturing for us); resume uncorks it.
    public func setPaused(_ paused: Bool) {
        guard started else { return }
        stream?.cork(paused)
    }

    public func failure(_ code: Int32) -> EngineError {
        EngineError(.server, "PulseAudio: lost the capture stream from \(connection?.server ?? pulseServerAddress()) (server stopped or device removed)",
                    suggestion: "restart the sound server, check the device, or use --source FILE")
    }

    public func finish(_ reason: EndReason) throws(EngineError) {
        reconnector?.close()
        stream?.close()
        stream = nil
    }

    public func takeEvents(nodeId: String) -> [EngineEvent] {
        if latencyProbe.load(ordering: .acquiring) && !latencyReported, let l = probeStream?.latency(), let d = device {
            latencyReported = true
            info.withLock { $0.append(.device(node: nodeId, name: reportedDevice ?? d.name, format: format, latency: l)) }
        }
        if let to = movedTo.withLock({ m in defer { m = nil }; return m }), to != reportedDevice {
            let from = reportedDevice ?? "the default source"
            reportedDevice = to
            let l = probeStream?.latency() ?? latency
            info.withLock {
                $0.append(.warning(node: nodeId, message: "PulseAudio: the server moved the capture from \"\(from)\" to \"\(to)\" "
                                   + "(the device was removed, the default changed, or a user moved the stream); the graph goes on at \(format.description)"))
                $0.append(.device(node: nodeId, name: to, format: format, latency: l))
            }
        }
        if let reconnector {
            let reports = reconnector.reports.withLock { r in
                defer { r.removeAll() }
                return r
            }
            if !reports.isEmpty { info.withLock { $0 += reports.map { .warning(node: nodeId, message: $0) } } }
        }
        return info.withLock { e in
            defer { e.removeAll() }
            return e
        }
    }

    public func publicEvent(_ raw: NodeEvent, nodeId: String) -> EngineEvent? {
        if raw.kind == .warning && raw.code == Self.warningNonFinite {
            return .warning(node: nodeId, message: NonFiniteSamples.warning(count: Int(raw.values.1), firstTime: raw.values.2,
                                                                            what: "captured audio"))
        }
        if raw.kind == .warning && raw.code == Self.warningSilent {
            return .warning(node: nodeId, message: String(format: "PulseAudio: %.0f s of digital silence from \"%@\" since %.3f s: ", raw.values.0,
                                                          reportedDevice ?? device?.name ?? "the default source", raw.values.1)
                            + "a microphone muted by its switch, a disconnected one, or not a microphone "
                            + "(`audiograph devices` lists the sources; --set \(nodeId).device=NAME picks one)")
        }
        return raw.standardEvent(nodeId: nodeId)
    }

    public func reset() {
        reportedNonFinite = false
        silenceWatch = DigitalSilenceWatch(threshold: silenceWatch.threshold)
    }

    /// Server-side latency of the capture stream, in seconds (for benchmarks).
    public var serverLatency: Double? { stream?.latency() }
}
