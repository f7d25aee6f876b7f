import AudioGraphConversation
import AudioGraphCore
import Foundation

/// `vad`: detects speech; audio passes through unchanged.
///
/// Every 10 ms a frame of `frame` seconds is measured (``SpeechFeatures``: likelihood
/// ratio against an adaptive noise spectrum, harmonicity, power over the noise in eight
/// bands) on 100 Hz-4 kHz, whatever the input rate, and a small fitted model
/// (``SpeechModel``) turns those measures and their recent history into the odds that the
/// frame is speech: the evidence. Frames `background` dB below the talker's recent loud
/// level fade out of it (babble, distant voices); over what the graph plays, heard through an
/// echo canceller (`echo`), that level does not fall: the answer's residual echo is not the
/// talker, and a level lowered through a long answer would let it start speech. The evidence
/// is smoothed and compared with two thresholds set by `sensitivity` (hysteresis); speech must
/// last `min-speech` to start (clicks and taps do not), and end only after `hangover` of
/// non-speech. In a quiet room (its quiet level below -40 dBFS), or for a sound 20 dB over its
/// room, speech starts only once a voice is heard (a few of the last 0.5 s of frames
/// periodic, ``FrameVoicing``): a dish's clatter, a click or a breath, and a whisper, start
/// nothing there.
///
/// `speech-start` and `speech-end` carry `t`, the true onset/offset (back-dated to the first
/// speech frame or the weak frames leading into it; the offset includes the word's decaying
/// tail), and `decided`, the stream time when the detector knew. They go to the event
/// stream and, as markers on the audio, to the nodes downstream (the recognizer keeps a
/// pre-roll so it decodes from `t`). Runs of weak frames outside speech also go downstream
/// as `speechPossible` / `speechDropped` hints (end-of-speech waits for their outcome).
/// Output bus 1 carries the per-frame speech probability as a 100 Hz signal for taps;
/// `probabilities` also reports it as events.
///
/// The node buffers and frames the audio; ``SpeechFrameAnalysis`` measures each frame and
/// says how much it looks like the talker's speech, ``SpeechSegmenter`` decides, and each decision is recorded once
/// (`record`). Tuning constants: `Tuning`; how they were chosen: TUNING.md.
public final class VoiceActivityDetector: AudioNode {
    public static let descriptor = NodeDescriptor(
        type: "vad",
        summary: "Detects speech (FFTW spectra vs adaptive noise, scored by a small fitted model); audio passes through.",
        role: .processor,
        parameters: [
            ParameterSpec("sensitivity", .number(0...1), default: 0.5,
                          help: "higher detects quieter speech and more false alarms (thresholds below)"),
            ParameterSpec("frame", .number(0.02...0.032), default: 0.025, unit: "s", help: "analysis frame length (10 ms hop)"),
            ParameterSpec("min-speech", .number(0.01...1), default: 0.08, unit: "s",
                          help: "speech shorter than this never starts (clicks, taps)"),
            ParameterSpec("hangover", .number(0...2), default: 0.2, unit: "s",
                          help: "non-speech needed before speech ends"),
            ParameterSpec("background", .number(0...60), default: 20, unit: "dB",
                          help: "sound this far below the talker's recent loud level counts as background (babble, distant voices); 0: off"),
            ParameterSpec("probabilities", .bool, default: false, help: "report the per-frame speech probability as events"),
        ],
        outputs: 2,
        markers: [.speechStart, .speechEnd, .speechPossible, .speechDropped],
        controls: [.input("gate", .gate, help: "what the graph plays (a speech-synth's, a pulse-sink's `playing`): left out, with its echo"),
                   .input("echo", .echo, help: "what the graph plays, heard through an echo canceller (its `echo`): measured, but the talker's loud level does not fall over it")],
        make: { p throws(GraphError) in VoiceActivityDetector(p) })

    static let probabilityKind = NodeEvent.Kind(rawValue: 1001)

    let frameSeconds: Double
    let reportProbabilities: Bool
    private let background: Float
    private var segmenter: SpeechSegmenter

    private var analysis: SpeechFrameAnalysis?
    private var rate = 16000.0
    private var frameLength = 400
    private var hopLength = 160
    private var ring: [Float] = []       // last frameLength samples of channel-mixed input
    /// The down-mix of a stereo (or wider) input, with a channel that is the first's negative
    /// turned (some laptops' microphones: their plain mean is near silence).
    private var polarity: ChannelPolarity?
    private var filled = 0
    private var sinceHop = 0
    private var framesDone: Int64 = 0    // frames measured (each ends at a hop boundary)
    private var totalSamples: Int64 = 0
    private var frameScratch: [Float] = []
    private var gate = PlaybackGate()
    /// What plays heard through an echo canceller (`echo`): the talker's level is held over it.
    private var echo = PlaybackGate()

    init(_ p: ResolvedParameters) {
        frameSeconds = p.number("frame")
        reportProbabilities = p.bool("probabilities")
        background = Float(p.number("background"))
        segmenter = SpeechSegmenter(sensitivity: p.number("sensitivity"),
                                    minSpeechFrames: max(1, Int((p.number("min-speech") / Tuning.hop).rounded())),
                                    hangoverFrames: max(1, Int((p.number("hangover") / Tuning.hop).rounded())),
                                    frameSeconds: frameSeconds)
    }

    public func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] {
        [inputs[0], StreamFormat(sampleRate: 1 / Tuning.hop, channelCount: 1)]
    }

    public func maxOutputFrames(forInputFrames frames: Int) -> Int { frames }

    public func prepare(_ context: PrepareContext) throws(EngineError) {
        rate = context.inputFormats[0].sampleRate
        gate = context.channel(.gate)
        echo = context.channel(.echo)
        frameLength = Int((frameSeconds * rate).rounded())
        hopLength = Int((Tuning.hop * rate).rounded())
        guard let a = SpeechFrameAnalysis(frameLength: frameLength, rate: rate, background: background) else {
            throw EngineError(.internalLimit, "cannot plan an FFT of \(frameLength) samples")
        }
        analysis = a
        let channels = context.inputFormats[0].channelCount
        polarity = channels > 1 ? ChannelPolarity(channels: channels, window: Int(rate / 10)) : nil
        ring = Array(repeating: 0, count: frameLength)
        frameScratch = Array(repeating: 0, count: frameLength)
        reset()
    }

    public func reset() {
        analysis?.reset()
        polarity?.reset()
        for i in ring.indices { ring[i] = 0 }
        filled = 0
        sinceHop = 0
        framesDone = 0
        totalSamples = 0
        segmenter.reset()
    }

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        let input = io.inputs[0], output = io.outputs[0], probs = io.outputs[1]
        let n = input.frameLength
        output.copyFrames(from: input, count: n)
        output.frameLength = n
        output.copyMarkers(from: input)
        var probCount = 0
        let channels = input.channelCount
        let scale = 1 / Float(channels)
        var i = 0
        while i < n {
            // Up to the next hop boundary (or the end of the ring), mixed down into the ring.
            let at = filled % frameLength
            let chunk = min(n - i, hopLength - sinceHop, frameLength - at)
            ring.withUnsafeMutableBufferPointer { r in
                let dst = r.baseAddress! + at
                if channels == 1 {
                    dst.update(from: input.channel(0) + i, count: chunk)
                } else if let polarity, polarity.channels == channels {
                    // The channels' mean with an inverted one turned, as the mixer to mono does.
                    polarity.mix(input, from: i, into: dst, count: chunk) { _ in }
                } else {
                    for k in 0..<chunk {
                        var x: Float = 0
                        for c in 0..<channels { x += input.channel(c)[i + k] }
                        dst[k] = x * scale
                    }
                }
            }
            i += chunk
            filled += chunk
            totalSamples += Int64(chunk)
            sinceHop += chunk
            if sinceHop == hopLength {
                sinceHop = 0
                if filled >= frameLength {
                    let p = analyse(&io, output: output, now: Double(totalSamples) / rate)
                    if probCount < probs.frameCapacity {
                        probs.channel(0)[probCount] = p
                        probCount += 1
                    }
                }
            }
        }
        probs.frameLength = probCount
        if io.inputsEnded {
            segmenter.end(now: Double(totalSamples) / rate) { record($0, &io, output) }
        }
        return .ok
    }

    /// Measures the newest frame and decides on it; returns the speech probability.
    private func analyse(_ io: inout ProcessIO, output: AudioBuffer, now: Double) -> Float {
        framesDone += 1
        let end = segmenter.frameEnd(framesDone)
        if gate.covers(end - frameSeconds, end) {
            // What the graph itself plays is not measured: the noise estimate and levels keep
            // what they learnt of the room; the model's memory of the frames before (a wake
            // word just heard) says nothing of what follows the playback, and starts again.
            analysis.unsafelyUnwrapped.model.reset()
            segmenter.skip(frame: framesDone, now: now) { record($0, &io, output) }
            return 0
        }
        // Unroll the ring, oldest first.
        let start = filled % frameLength, tail = frameLength - start
        let a = analysis.unsafelyUnwrapped
        let (m, signal, gate) = frameScratch.withUnsafeMutableBufferPointer { f in
            ring.withUnsafeBufferPointer { r in
                (f.baseAddress!).update(from: r.baseAddress! + start, count: tail)
                (f.baseAddress! + tail).update(from: r.baseAddress!, count: start)
            }
            // Plain voicing matters to starts only: not measured while speech goes on (the
            // segmenter counts those frames as voiced).
            return a.measure(f.baseAddress!, count: frameLength, frame: framesDone,
                             holdingLevel: echo.covers(end - frameSeconds, end), voicing: !segmenter.speaking)
        }
        var speech = (Tuning.modelCentre + Tuning.modelScale * a.model.logit()) * gate
        // No sound above the noise: not speech, whatever the model's memory of the last word.
        if signal < Tuning.presence { speech = min(speech, 0) }
        let probability = segmenter.score(speech)
        if reportProbabilities {
            io.emit(NodeEvent(Self.probabilityKind, t: end, values: (Double(probability), 0, 0, 0)))
        }
        let f = a.features
        let voiced = !f.isYoung || (f.voicing >= Tuning.voicedHarmonicity && f.lowShare >= Tuning.voicedLowShare)
        // Where a voice's plain periodicity can be heard: a quiet room, or a sound well above its room.
        let clear = a.floorLevel < Tuning.quietRoomLevel || m.level - a.floorLevel >= Tuning.clearAboveFloor
        segmenter.decide(frame: framesDone, evidence: speech, signal: signal, high: m.high, voiced: voiced,
                         plainVoiced: a.plainVoicing >= Tuning.plainVoicedBar, clear: clear, now: now) {
            record($0, &io, output)
        }
        return probability
    }

    /// Records a decision once (`ProcessIO.record`: a marker downstream, and an event for
    /// onsets and offsets); hints only while the block keeps room for decisions after them.
    private func record(_ d: SpeechSegmenter.Decision, _ io: inout ProcessIO, _ output: AudioBuffer) {
        switch d {
        case .start(let t, let decided): io.record(StreamMarker(.speechStart, t: t, decided: decided), on: output)
        case .end(let t, let decided): io.record(StreamMarker(.speechEnd, t: t, decided: decided), on: output)
        case .possible(let t, let decided, let by):
            if output.markerCount < AudioBuffer.markerCapacity - 2 {
                io.record(StreamMarker(.speechPossible, t: t, decided: decided, resolvesBy: by), on: output)
            }
        case .dropped(let t, let decided):
            if output.markerCount < AudioBuffer.markerCapacity - 2 {
                io.record(StreamMarker(.speechDropped, t: t, decided: decided), on: output)
            }
        }
    }

    public func publicEvent(_ raw: NodeEvent, nodeId: String) -> EngineEvent? {
        if raw.kind == Self.probabilityKind {
            return .probability(node: nodeId, t: raw.t, p: raw.values.0)
        }
        return raw.standardEvent(nodeId: nodeId)
    }
}
