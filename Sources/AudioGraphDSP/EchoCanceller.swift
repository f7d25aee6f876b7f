import AudioGraphConversation
import AudioGraphCore
import Foundation
import CSpeexDSP

/// `echo-canceller`: removes from the microphone what the graph plays (AVAudioEngine's voice
/// processing), with speexdsp's MDF adaptive filter and its preprocessor's residual echo
/// suppression, optional noise suppression and gain control.
///
///     mic ──► bus 0 ┐
///                   ├─ echo-canceller ──► the microphone, echo removed (mono, the mic's rate)
///     what plays ─► bus 1 (reference) ┘
///
/// Works in 20 ms frames (speexdsp's suggested size; 10 ms frames measured 3 dB less echo
/// reduction): the output lags the microphone by one frame, and by one more with
/// `suppression` (speexdsp's preprocessor holds one, and the output keeps that latency while
/// the preprocessor sits out between echoes). The reference may be
/// delayed by `delay` before the filter (the playback path's latency, when it is longer than
/// the filter's tail); within `filter` seconds the filter finds the echo's delay and shape
/// by itself, and follows them as they change. With `align` the node measures the echo's delay
/// from the two signals (``EchoDelayEstimator``: up to `max-delay`) and delays the reference
/// so that the echo falls at the start of the tail, following it when the sound server's
/// latencies change; each delay it takes is an `echo-delay` event. With `drift` it also follows
/// an echo whose delay creeps (capture and playback on separate clocks): the measured delays'
/// trend (``EchoDriftTracker``) sets the rate the reference is read at
/// (``FractionalDelayLine``), so the filter sees an echo path that stands still. With `align`,
/// its last stage (`coherence`, ``CoherenceSuppressor``) takes out per frequency what of the
/// output is still the echo while an echo may be there (one frame more of latency); the hold is
/// measured after it, so a filter still converging on the first answer holds sooner. The same
/// stage takes out the echo past the filter's tail (`late-echo`: a reverberant room's late
/// reverberation, ``LateEchoEstimator``, drawn every half second from how the filter's tail
/// decays), and an echo then lasts, for the stages that run only while one may be there,
/// until that late part has decayed by 40 dB. Missing reference
/// (nothing played) is silence.
/// Render thread only: nothing allocated per block.
public final class EchoCanceller: AudioNode {
    /// The `echo-canceller` node type.
    public static let descriptor = NodeDescriptor(
        type: "echo-canceller",
        summary: "Removes what the graph plays (bus 1) from the microphone (bus 0): speexdsp's echo canceller.",
        role: .processor,
        parameters: [
            ParameterSpec("filter", .number(0.02...1), default: 0.25, unit: "s", help: "echo tail the filter covers (room and playback delay)"),
            ParameterSpec("delay", .number(0...2), default: 0, unit: "s", help: "delay the reference by this much first (playback latency beyond the tail)"),
            ParameterSpec("suppression", .bool, default: true, help: "suppress the echo left after the filter (speexdsp's preprocessor)"),
            ParameterSpec("noise-suppression", .number(-60...0), default: 0, unit: "dB", help: "noise suppression (0: off; -15 typical)"),
            ParameterSpec("gain-control", .bool, default: false, help: "automatic gain control"),
            ParameterSpec("align", .bool, default: true,
                          help: "measure how late the echo comes back (cross-correlation of the two inputs) and delay the reference to match, following changes; reported as echo-delay events"),
            ParameterSpec("max-delay", .number(0.1...2), default: 1, unit: "s", help: "with align: the longest echo delay looked for"),
            ParameterSpec("drift", .bool, default: true,
                          help: "with align: follow an echo whose delay creeps (capture and playback on separate clocks) by reading the reference at the rate the echo comes back"),
            ParameterSpec("hold", .number(0...60), default: 15, unit: "dB",
                          help: "the canceller holds the echo once its output stays this far below what plays, in the whole band and its treble (two half seconds of sound running), measured again at each sound after a second of silence (each answer), or after a quarter second once a barge-in stopped what played; until then what plays is marked on its `playing` output; each hold is an echo-held event"),
            ParameterSpec("late-echo", .number(0...16), default: 8,
                          help: "with coherence: take out, per frequency, the echo past the filter's tail (a reverberant room's late reverberation, predicted from how the filter's tail decays), this many times its predicted power (0: off)"),
            ParameterSpec("coherence", .number(0...8), default: 1,
                          help: "with align, while an echo may be there: take out, per frequency, what of the output is still the echo (coherent with what plays, and not with the microphone), this strongly (an exponent; 0: off, and the output 20 ms sooner)"),
        ],
        inputs: .fixed(2),
        controls: [
            .output("playing", .gate, help: "what the graph plays, while the filter does not yet hold its echo (connect to the listeners' gate: they leave it out until the canceller holds)"),
            .output("echo", .echo, help: "what the graph plays and its echo, held or not (connect to a vad's `echo`: it does not learn the talker's level from the answer)"),
        ],
        make: { p throws(GraphError) in EchoCanceller(p) })

    let tail: Double, delay: Double, suppression: Bool, noiseSuppression: Int, gainControl: Bool
    let align: Bool, maxDelay: Double, followDrift: Bool
    /// With `align`: the echo's delay, measured.
    var estimator: EchoDelayEstimator?
    var reportedDelay = false
    /// With `drift`: the measured delay's trend, and how far the echo lies into the filter's
    /// tail (samples) when the trend was first drawn, which the reference's rate then keeps.
    var drift = EchoDriftTracker(rate: 16000)
    var driftOffset: Double?
    /// Microphone samples taken in, and taken into the filter's frames.
    var micSeen = 0, micConsumed = 0
    /// Whether the filter holds the echo (see `hold`), the half second being measured, and
    /// the windows in a row that held.
    var holds = false
    let holdERLE: Double
    var holdWindow = HoldWindow()
    var windowsHeld = 0
    /// The gate's barge-in count when the filter last came to hold: a higher count now means
    /// the user talked over the echo it held, which can leave the filter off it.
    var interruptionsAtHold = 0
    /// The last stage, per frequency (`coherence`), and how strongly; how strongly it takes
    /// out the echo past the filter's tail (`late-echo`), whose impulse response it is drawn
    /// from every half second (`impulse`, taps) while an echo may be there.
    var coherence: CoherenceSuppressor?
    let overdrive: Double, lateEcho: Double
    private var impulse: [Int32] = []
    private var framesSinceImpulse = 0
    /// Frames the late echo lasts past the filter's tail (0 without one).
    private var lateFrames = 0
    /// What plays while the filter does not hold its echo (its `playing` output).
    private(set) var gate = PlaybackGate()
    /// What plays and its echo, held or not (its `echo` output).
    private var echoSpans = PlaybackGate()
    /// Whether the reported playback latency has been taken as the first delay (first block).
    private var startedFromLatency = false
    /// Frames (20 ms) until an echo of what last played has died away (its late part too).
    private var echoFrames = 0
    /// Microphone samples since the reference last carried sound (at most a second's).
    private var quietSamples = 0
    var rate = 16000.0
    static let echoDelayKind = NodeEvent.Kind(rawValue: 1300)
    static let echoHeldKind = NodeEvent.Kind(rawValue: 1301)
    var echo: OpaquePointer?
    private var preprocess: OpaquePointer?
    private var frame = 160
    private var micFIFO = SampleFIFO(capacity: 1)
    /// The reference, read at the position and rate that line it up with its echo.
    var refLine = FractionalDelayLine(capacity: 1)
    private var outFIFO = SampleFIFO(capacity: 1)
    private var micFrame: [Int16] = []
    var refFrame: [Int16] = []
    var outFrame: [Int16] = []
    /// With `suppression`: the frame the output holds back while the preprocessor sits out.
    private var passFrame: [Int16] = []
    /// The filter's output before residual suppression (what `coherence` measures).
    private var filteredFrame: [Int16] = []

    init(_ p: ResolvedParameters) {
        tail = p.number("filter")
        delay = p.number("delay")
        suppression = p.bool("suppression")
        noiseSuppression = Int(p.number("noise-suppression"))
        gainControl = p.bool("gain-control")
        align = p.bool("align")
        maxDelay = p.number("max-delay")
        followDrift = p.bool("drift")
        holdERLE = p.number("hold")
        overdrive = p.number("coherence")
        lateEcho = p.number("late-echo")
    }

    deinit { release() }

    private func release() {
        if let echo { speex_echo_state_destroy(echo) }
        if let preprocess { speex_preprocess_state_destroy(preprocess) }
        echo = nil
        preprocess = nil
    }

    public func acceptedFormat(forInput bus: Int, offered: StreamFormat, all: [StreamFormat]) -> StreamFormat {
        StreamFormat(sampleRate: bus == 0 ? offered.sampleRate : all[0].sampleRate, channelCount: 1)
    }

    public func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] {
        [StreamFormat(sampleRate: inputs[0].sampleRate, channelCount: 1)]
    }

    public func prepare(_ context: PrepareContext) throws(EngineError) {
        release()
        let rate = Int(context.inputFormats[0].sampleRate)
        frame = rate / 50
        echo = speex_echo_state_init(Int32(frame), Int32(max(Double(frame), tail * Double(rate))))
        var r = Int32(rate)
        speex_echo_ctl(echo, SPEEX_ECHO_SET_SAMPLING_RATE, &r)
        preprocess = speex_preprocess_state_init(Int32(frame), Int32(rate))
        let off: Int32 = 0, on: Int32 = 1
        // speexdsp suppresses residual echo inside its denoiser's spectral gains: with
        // suppression on, the denoiser runs, at 1 dB of noise suppression unless more is asked.
        var ns = Int32(noiseSuppression < 0 ? noiseSuppression : -1)
        var denoise: Int32 = noiseSuppression < 0 || suppression ? on : off
        var agc: Int32 = gainControl ? on : off
        speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_DENOISE, &denoise)
        speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &ns)
        speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_AGC, &agc)
        if suppression {
            speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_ECHO_STATE, UnsafeMutableRawPointer(echo))
            // Residual echo: attenuated by up to 60 dB while only the far end speaks, 25 dB
            // while the near end speaks too (speexdsp's defaults: 40 and 15).
            var quiet: Int32 = -60, active: Int32 = -25
            speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_ECHO_SUPPRESS, &quiet)
            speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE, &active)
        }
        let block = context.maxFrames
        let delayFrames = Int(delay * Double(rate))
        self.rate = Double(rate)
        reportedDelay = false
        drift = EchoDriftTracker(rate: Double(rate))
        driftOffset = nil
        micSeen = 0
        micConsumed = 0
        startedFromLatency = false
        gate = context.channel(.gate)
        echoSpans = context.channel(.echo)
        echoSpans.reset()  // a new run starts from stream time 0; its only writer is this node
        startMeasuring()
        // The preprocessor, when it runs, holds a frame: the output to suppress is one behind.
        let preprocessed = suppression || noiseSuppression < 0 || gainControl
        coherence = align && overdrive > 0
            ? CoherenceSuppressor(frame: frame, maxLag: Int(tail * Double(rate)), overdrive: overdrive, outputLag: preprocessed ? 1 : 0, lateEcho: lateEcho) : nil
        var taps: Int32 = 0
        speex_echo_ctl(echo, SPEEX_ECHO_GET_IMPULSE_RESPONSE_SIZE, &taps)
        impulse = [Int32](repeating: 0, count: Int(max(taps, 0)))
        framesSinceImpulse = 0
        lateFrames = 0
        estimator = align ? EchoDelayEstimator(rate: Double(rate), maxSeconds: maxDelay) : nil
        micFIFO = SampleFIFO(capacity: block + 2 * frame)
        refLine = FractionalDelayLine(capacity: block * 4 + max(delayFrames, Int(maxDelay * Double(rate))) + 2 * frame)
        refLine.readPosition = -Double(delayFrames)
        outFIFO = SampleFIFO(capacity: block + 3 * frame)
        outFIFO.push(zeros: frame)  // the one frame the output lags
        micFrame = [Int16](repeating: 0, count: frame)
        refFrame = [Int16](repeating: 0, count: frame)
        outFrame = [Int16](repeating: 0, count: frame)
        passFrame = [Int16](repeating: 0, count: frame)
        filteredFrame = [Int16](repeating: 0, count: frame)
    }

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        let mic = io.inputs[0], ref = io.inputs[1], out = io.outputs[0]
        let n = mic.frameLength
        if !startedFromLatency {
            // Before anything plays: the playback latency the sound server reports (a
            // `pulse-sink` on the same gate says it) as the first guess of the echo's delay,
            // so the measured delay usually needs no realignment (which starts the filter over).
            startedFromLatency = true
            let guess = Int((gate.outputLatency - 0.03) * rate)
            if delay == 0 && guess > 0 { refLine.readPosition -= Double(guess) }
        }
        if estimator != nil { follow(mic, ref, &io) }
        let sounds = ref.frameLength > 0 && Self.carriesSound(ref)
        if sounds {
            // Each answer (sound after a second of silence) is measured again before the
            // listeners hear over it: double talk over the last one (a user interrupting it)
            // can leave the filter off its echo, and its own voice then interrupted the next.
            // After a barge-in, a quarter second of quiet is enough (the interrupting command
            // can end, and its answer start, within a second of the cancel earcon).
            if holds && (quietSamples >= Int(rate)
                         || quietSamples >= Int(rate / 4) && gate.interruptionCount != interruptionsAtHold) {
                startMeasuring()
            }
            quietSamples = 0
        } else {
            quietSamples = min(quietSamples + n, Int(rate))
        }
        if sounds {
            let start = mic.time, end = mic.time + Double(n) / rate
            // Its echo: the measured delay (else 0.1 s) and 0.2 s of room, after the output
            // latency a sink on the same gate reports (`playing` adds it).
            let tail = (estimator?.delaySeconds ?? 0.1) + 0.2
            // Until the filter holds, what plays now and its echo are left out by the listeners.
            if !holds { gate.playing(from: start, to: end, tail: tail) }
            // Held or not, a vad on `echo` keeps the talker's level over it. No sink reports its
            // latency on that channel, so the gate's is added here.
            echoSpans.playing(from: start, to: end, tail: tail + gate.outputLatency)
        }
        micFIFO.push(mic.channel(0), count: n)
        micSeen += n
        refLine.push(ref.channel(0), count: min(ref.frameLength, n))
        if refLine.written < micSeen { refLine.push(zeros: micSeen - refLine.written) }  // nothing played
        while micFIFO.count >= frame {
            micFIFO.pop(into: &micFrame)
            if followDrift { setReferenceRate(&io) }
            refLine.pop(into: &refFrame)
            micConsumed += frame
            micFrame.withUnsafeBufferPointer { m in
                refFrame.withUnsafeBufferPointer { r in
                    outFrame.withUnsafeMutableBufferPointer { o in
                        speex_echo_cancellation(echo, m.baseAddress, r.baseAddress, o.baseAddress)
                    }
                }
            }
            // Residual echo suppression only while an echo may be there: from a frame the
            // reference played until its echo has died away. Outside it, the preprocessor
            // would only alter the user's speech (it cost the wake word in some runs).
            if coherence != nil { Self.copy(outFrame, into: &filteredFrame) }
            let played = Self.energy(refFrame)
            let plays = played > Self.playingEnergy * Float(frame)
            if plays {
                echoFrames = Int(((estimator?.delaySeconds ?? maxDelay) + 0.3) * 50) + lateFrames
            } else if echoFrames > 0 {
                echoFrames -= 1
            }
            if suppression && echoFrames > 0 || noiseSuppression < 0 || gainControl {
                // The preprocessor's output is the frame before (its overlap-add holds one).
                Self.copy(outFrame, into: &passFrame)
                _ = outFrame.withUnsafeMutableBufferPointer { speex_preprocess_run(preprocess, $0.baseAddress) }
            } else if suppression {
                // Sitting out, it still follows the microphone (its noise estimate, and the
                // frames its overlap-add resumes from), and the output keeps its one frame of
                // latency: resuming at the next echo neither replays the frame it last held
                // (a stale 20 ms from the end of the last echo, up to 30 dB over the room)
                // nor drops one when it stops.
                _ = outFrame.withUnsafeMutableBufferPointer { speex_preprocess_estimate_update(preprocess, $0.baseAddress) }
                swap(&outFrame, &passFrame)
            }
            if let coherence {
                if lateEcho > 0 { learnLateEcho(coherence) }
                suppress(coherence)
            }
            // On what the listeners hear: residual suppression and the coherence stage included.
            if !holds, let below = measure(played: plays ? played : nil) {
                _ = io.emit(NodeEvent(Self.echoHeldKind, t: Double(micConsumed) / rate, values: (below, 0, 0, 0)))
            }
            outFIFO.push(outFrame)
        }
        let m = min(n, outFIFO.count)
        outFIFO.pop(into: out.channel(0), count: m)
        out.frameLength = m
        // The microphone has ended: so has the node (a reference alone is nothing to cancel;
        // the last frame, 20 ms, stays in the filter).
        return io.inputEnded[0] ? .endOfStream : .ok
    }

    public func reset() {
        if let echo { speex_echo_state_reset(echo) }
        coherence?.reset()
        lateFrames = 0
        echoSpans.reset()
        startMeasuring()
    }

    /// The last stage: per frequency, what of the output is still the echo (``CoherenceSuppressor``),
    /// while an echo may be there (the filter converging on it or holding it); the output one
    /// frame later.
    private func suppress(_ c: CoherenceSuppressor) {
        let lag = Int(((estimator?.delaySeconds ?? 0) * rate - appliedDelay).rounded())  // where the echo lies in the tail
        c.process(mic: micFrame, filtered: filteredFrame, reference: refFrame, output: &outFrame, lag: lag, active: echoFrames > 0)
    }

    /// Every half second while an echo may be there: the late echo's gain and decay, drawn
    /// again from the filter's impulse response.
    private func learnLateEcho(_ c: CoherenceSuppressor) {
        framesSinceImpulse += 1
        guard echoFrames > 0, framesSinceImpulse >= 25, !impulse.isEmpty else { return }
        framesSinceImpulse = 0
        impulse.withUnsafeMutableBufferPointer { h in
            _ = speex_echo_ctl(echo, SPEEX_ECHO_GET_IMPULSE_RESPONSE, h.baseAddress)
            c.late.learn(impulseResponse: h.baseAddress!, partitions: h.count / frame, frame: frame, scale: Self.impulseScale * Float(frame))
        }
        // The echo lasts until its late part has decayed by 40 dB (at most 2 s more).
        lateFrames = c.late.decay > 0 ? min(100, Int(40 / (-10 * log10(c.late.decay)))) : 0
    }

    /// speexdsp's impulse response: each tap this many times the echo path's gain, per
    /// sample of a frame (its float build scales the taps by 32767 and the frame's length).
    static let impulseScale: Float = 32767

    /// Copies one frame into another of the same length, in place (an assignment would share
    /// the storage and copy it, allocating, when either is next written).
    private static func copy(_ source: [Int16], into target: inout [Int16]) {
        target.withUnsafeMutableBufferPointer { t in source.withUnsafeBufferPointer { t.baseAddress!.update(from: $0.baseAddress!, count: $0.count) } }
    }

    /// A 20 ms frame's energy (16-bit units squared, summed).
    static func energy(_ f: [Int16]) -> Float {
        var e: Float = 0
        for v in f { e += Float(v) * Float(v) }
        return e
    }

    /// Energy per sample above which a frame plays something (about -50 dBFS RMS).
    private static let playingEnergy: Float = 1e-5 * 32768 * 32768

    /// Whether a block carries sound (a sample above -50 dBFS).
    private static func carriesSound(_ b: AudioBuffer) -> Bool {
        let c = b.channel(0)
        for i in 0..<b.frameLength where abs(c[i]) > 0.003 { return true }
        return false
    }

    public func publicEvent(_ raw: NodeEvent, nodeId: String) -> EngineEvent? {
        switch raw.kind {
        case Self.echoDelayKind: return .conversation(nodeId, .echoDelay(delay: raw.values.0, t: raw.t))
        case Self.echoHeldKind: return .conversation(nodeId, .echoHeld(below: raw.values.0, t: raw.t))
        default: return raw.standardEvent(nodeId: nodeId)
        }
    }
}
