import AudioGraphCore
import Foundation

/// `vad`: detects speech; audio passes through unchanged.
///
/// Every 10 ms a frame of `frame` seconds is measured (``SpeechFeatures``: likelihood
/// ratio against an adaptive noise spectrum, plus harmonicity) on 100 Hz-4 kHz, whatever
/// the input rate. Two adaptations keep fluctuating noise out: frames `background` dB below
/// the talker's recent loud level fade out of the evidence, and a running low quantile of
/// the evidence (which babble and clatter raise, stationary noise does not) is taken off it.
/// The evidence is smoothed and compared with two thresholds set by
/// `sensitivity` (hysteresis); speech must last `min-speech` to start (clicks and taps
/// do not), and end only after `hangover` of non-speech.
///
/// `speech-start` and `speech-end` carry `t`, the true onset/offset (back-dated to the first
/// speech frame or the weak frames leading into it; the offset includes the word's decaying
/// tail), and `decided`, the stream time when the detector knew. They go to the event
/// stream and, as markers on the audio, to the nodes downstream (the recognizer keeps a
/// pre-roll so it decodes from `t`). Runs of weak frames outside speech also go downstream
/// as `speechPossible` / `speechDropped` hints (end-of-speech waits for their outcome).
/// Output bus 1 carries the per-frame speech probability as a 100 Hz signal for taps;
/// `probabilities` also reports it as events.
public final class VoiceActivityDetector: AudioNode {
    public static let descriptor = NodeDescriptor(
        type: "vad",
        summary: "Detects speech (FFTW: likelihood ratio vs adaptive noise + harmonicity); audio passes through.",
        role: .processor,
        parameters: [
            ParameterSpec("sensitivity", .number(0...1), default: 0.5,
                          help: "higher detects quieter speech and more false alarms (thresholds below)"),
            ParameterSpec("frame", .number(0.02...0.032), default: 0.025, unit: "s", help: "analysis frame length (10 ms hop)"),
            ParameterSpec("min-speech", .number(0.01...1), default: 0.08, unit: "s",
                          help: "speech shorter than this never starts (clicks, taps)"),
            ParameterSpec("hangover", .number(0...2), default: 0.2, unit: "s",
                          help: "non-speech needed before speech ends"),
            ParameterSpec("background", .number(0...60), default: 15, unit: "dB",
                          help: "sound this far below the talker's recent loud level counts as background (babble, distant voices); 0: off"),
            ParameterSpec("probabilities", .bool, default: false, help: "report the per-frame speech probability as events"),
        ],
        outputs: 2,
        markers: [.speechStart, .speechEnd, .speechPossible, .speechDropped],
        make: { p throws(GraphError) in VoiceActivityDetector(p) })

    static let probabilityKind = NodeEvent.Kind(rawValue: 1001)
    static let hop = 0.01
    /// 4-8 kHz power over its noise (6 dB) that lets a frame lead into an onset.
    static let fricativeRatio: Float = 4
    /// Most frames an onset is back-dated over the weaker frames that lead into it.
    static let leadInFrames: Int64 = 20
    /// Most frames a word's decaying tail may extend the offset past the last speech frame.
    static let tailFrames: Int64 = 15

    let sensitivity: Double
    let frameSeconds: Double
    let minSpeechFrames: Int
    let hangoverFrames: Int
    let reportProbabilities: Bool
    /// dB below the talker's loud level at which frames stop counting as speech (0: off).
    let background: Float

    private var features: SpeechFeatures?
    private var rate = 16000.0
    private var frameLength = 400
    private var hopLength = 160
    private var ring: [Float] = []       // last frameLength samples of channel-mixed input
    private var filled = 0
    private var sinceHop = 0
    private var framesDone: Int64 = 0    // frames measured (each ends at a hop boundary)
    private var totalSamples: Int64 = 0
    private var score: Float = 0
    private var speaking = false
    private var run = 0                  // consecutive frames on the other side of the threshold
    private var runStart: Int64 = 0
    private var lastRawSpeechFrame: Int64 = 0
    private var possibleSpeech = false       // a `speechPossible` hint awaits its outcome
    private var lastTailFrame: Int64 = 0     // end of the sound that trails the last speech frame
    private var weakRunStart: Int64 = 0      // first frame of the current run of weak speech evidence
    private var lastWeakFrame: Int64 = 0
    private var lastLoudFrame: Int64 = -1000
    private var frameScratch: [Float] = []
    private var floor: Float = 0          // running low quantile of the evidence
    private var loudLevel: Float = -100   // the talker's loud level: ~98th percentile of frame levels (dBFS)
    private var gate = PlaybackGate()

    init(_ p: ResolvedParameters) {
        sensitivity = p.number("sensitivity")
        frameSeconds = p.number("frame")
        minSpeechFrames = max(1, Int((p.number("min-speech") / Self.hop).rounded()))
        hangoverFrames = max(1, Int((p.number("hangover") / Self.hop).rounded()))
        reportProbabilities = p.bool("probabilities")
        background = Float(p.number("background"))
    }

    /// Evidence threshold for starting speech at this sensitivity (ending uses 60% of it).
    var onThreshold: Float { Float(1.3 - 0.8 * sensitivity) }
    var offThreshold: Float { 0.6 * onThreshold }

    public func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] {
        [inputs[0], StreamFormat(sampleRate: 1 / Self.hop, channelCount: 1)]
    }

    public func maxOutputFrames(forInputFrames frames: Int) -> Int { frames }

    public func prepare(_ context: PrepareContext) throws(EngineError) {
        rate = context.inputFormats[0].sampleRate
        gate = context.playbackGate
        frameLength = Int((frameSeconds * rate).rounded())
        hopLength = Int((Self.hop * rate).rounded())
        guard let f = SpeechFeatures(frameLength: frameLength, rate: rate) else {
            throw EngineError(.internalLimit, "cannot plan an FFT of \(frameLength) samples")
        }
        features = f
        ring = Array(repeating: 0, count: frameLength)
        frameScratch = Array(repeating: 0, count: frameLength)
        reset()
    }

    public func reset() {
        features?.reset()
        for i in ring.indices { ring[i] = 0 }
        filled = 0
        sinceHop = 0
        framesDone = 0
        totalSamples = 0
        score = 0
        weakRunStart = 0
        lastWeakFrame = 0
        lastLoudFrame = -1000
        floor = 0
        loudLevel = -100
        speaking = false
        run = 0
        lastRawSpeechFrame = 0
        lastTailFrame = 0
        possibleSpeech = false
    }

    /// Stream time (s) of the end of frame `n` (frames end on hop boundaries).
    func frameEnd(_ n: Int64) -> Double { Double(n) * Self.hop + frameSeconds - Self.hop }

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
        if io.inputsEnded && speaking { endSpeech(&io, output: output, now: Double(totalSamples) / rate) }
        return .ok
    }

    /// Measures the newest frame and updates the decision; returns the speech probability.
    private func analyse(_ io: inout ProcessIO, output: AudioBuffer, now: Double) -> Float {
        let end = frameEnd(framesDone + 1)
        if gate.covers(end - frameSeconds, end) { return skipPlayback(&io, output: output, now: now) }
        // Unroll the ring, oldest first.
        let start = filled % frameLength, tail = frameLength - start
        let m = frameScratch.withUnsafeMutableBufferPointer { f in
            ring.withUnsafeBufferPointer { r in
                (f.baseAddress!).update(from: r.baseAddress! + start, count: tail)
                (f.baseAddress! + tail).update(from: r.baseAddress!, count: start)
            }
            return features.unsafelyUnwrapped.measure(f.baseAddress!, count: frameLength)
        }
        framesDone += 1
        // Evidence: the compressed likelihood ratio, plus periodicity where there is signal
        // above the noise to be periodic (in near-silence the spectrum's autocorrelation is
        // meaningless), held back in digital silence.
        let llr = log1p(max(m.llr, 0))
        var evidence = llr + 1.0 * max(0, m.harmonicity - 0.3) * min(1, llr)
        if m.level < -70 { evidence = min(evidence, 0) }
        let signal = evidence  // before the background gate: is there sound above the noise?
        // Background gate: the loud end of the recent level distribution (its ~98th
        // percentile: up 1 dB a frame, down 1.5 dB/s) is the talker; frames `background`
        // dB or more below it fade out of the evidence over 6 dB (babble 20 dB below the
        // talker: false alarms 99 % -> about 40 %).
        if framesDone == 1 { loudLevel = m.level }
        loudLevel += m.level > loudLevel ? 1 : -0.015
        if background > 0 {
            // A word's decaying end (0.25 s after the last loud frame) may fall 8 dB further
            // before it fades; babble that goes on longer gets no slack. (No gate at all in
            // that time moved eos_peers.py's quiet p50 585 -> 641 ms for the same early cuts.)
            if m.level >= loudLevel - background { lastLoudFrame = framesDone }
            let slack: Float = framesDone - lastLoudFrame <= 25 ? 8 : 0
            let below = (loudLevel - background - slack) - m.level
            if below > 0 { evidence *= max(0, 1 - below / 6) }
        }
        // Evidence floor: a running 20 % quantile of the evidence itself. Stationary noise
        // is learnt by the noise spectrum and leaves it near 0; fluctuating noise (babble,
        // clatter) keeps the likelihood ratio up between utterances and raises it: what it
        // rises above 0.3 is taken off.
        let step: Float = speaking ? 0.0125 : 0.05  // slower in speech: a long utterance is not background
        floor = max(0, floor + (evidence < floor ? -step * 0.8 : step * 0.2))
        evidence -= max(0, floor - 0.3)
        score = 0.6 * score + 0.4 * evidence
        let probability = 1 / (1 + exp(-3 * (score - onThreshold)))
        if reportProbabilities {
            io.emit(NodeEvent(Self.probabilityKind, t: frameEnd(framesDone), values: (Double(probability), 0, 0, 0)))
        }
        // A word's tail: after the last frame with speech evidence, the sound that stays
        // above the noise without a break, though the background gate has faded it out (a
        // vowel dying away 20-40 dB under the talker's loud level; eos_peers.py: the one
        // early cut in quiet came from an offset 0.13 s before such a tail ended).
        if evidence >= offThreshold {
            lastRawSpeechFrame = framesDone
            lastTailFrame = framesDone
        } else if signal >= offThreshold && lastTailFrame == framesDone - 1 && framesDone - lastRawSpeechFrame <= Self.tailFrames {
            lastTailFrame = framesDone
        }
        // Frames that may lead into an onset: some speech evidence, or a fricative's hiss.
        // Outside speech, a run of them is announced to end-of-speech as possible speech
        // (a soft "th" or "f" can precede its confirmed onset by 0.2 s).
        if evidence >= offThreshold || m.high > Self.fricativeRatio {
            if lastWeakFrame != framesDone - 1 {
                weakRunStart = framesDone
                if !speaking { announcePossibleSpeech(output, from: weakRunStart, now: now) }
            }
            lastWeakFrame = framesDone
        } else if possibleSpeech {
            possibleSpeech = false
            addHint(output, StreamMarker(.speechDropped, t: frameEnd(framesDone), decided: now))
        }
        if !speaking {
            // Onset: raw evidence above the threshold for min-speech in a row (a click's
            // short burst is not stretched by the smoothing), confirmed by the smoothed score.
            if evidence > onThreshold && (run + 1 < minSpeechFrames || score > onThreshold) {
                if run == 0 { runStart = framesDone }
                run += 1
                if run >= minSpeechFrames {
                    speaking = true
                    possibleSpeech = false
                    run = 0
                    // Back-dated over the weaker frames that lead into it (a soft /θ/ or /f/
                    // before the vowel), at most 0.2 s.
                    let first = max(min(weakRunStart, runStart), runStart - Self.leadInFrames)
                    let t = onsetTime(first)
                    io.emit(NodeEvent(.speechStart, t: t, decided: now))
                    output.addMarker(StreamMarker(.speechStart, t: t, decided: now))
                }
            } else {
                run = 0
            }
        } else {
            if score >= offThreshold {
                run = 0
            } else {
                run += 1
                if run >= hangoverFrames {
                    endSpeech(&io, output: output, now: now)
                    // Noise that keeps the weak evidence going through the pause starts no run
                    // of its own, so without this the next onset would come unannounced.
                    if lastWeakFrame == framesDone { announcePossibleSpeech(output, from: framesDone, now: now) }
                }
            }
        }
        return probability
    }

    /// A frame that lies in what the graph itself plays (``PlaybackGate``): not measured (the
    /// noise estimate and levels keep what they learnt of the room), no speech evidence, so
    /// speech in progress ends after the hangover and none starts.
    private func skipPlayback(_ io: inout ProcessIO, output: AudioBuffer, now: Double) -> Float {
        framesDone += 1
        score *= 0.6
        if possibleSpeech {
            possibleSpeech = false
            addHint(output, StreamMarker(.speechDropped, t: frameEnd(framesDone), decided: now))
        }
        if speaking {
            run += 1
            if run >= hangoverFrames { endSpeech(&io, output: output, now: now) }
        } else {
            run = 0
        }
        return 0
    }

    /// Speech ends with the end of its tail (frame ends, not centres: centres measured
    /// offsets 25-70 ms early on the peer harness), decided `now`.
    private func endSpeech(_ io: inout ProcessIO, output: AudioBuffer, now: Double) {
        speaking = false
        run = 0
        let t = frameEnd(lastTailFrame)
        io.emit(NodeEvent(.speechEnd, t: t, decided: now))
        output.addMarker(StreamMarker(.speechEnd, t: t, decided: now))
    }

    /// Stream time of an onset first heard in frame `n` (its centre, within its first hop).
    private func onsetTime(_ n: Int64) -> Double { max(0, frameEnd(n) - frameSeconds + Self.hop / 2) }

    /// Marks weak evidence from frame `first` on as possible speech: confirmed by the onset
    /// it leads into, dropped when the run of weak frames ends first (end-of-speech waits for
    /// the outcome until `resolvesBy`).
    private func announcePossibleSpeech(_ output: AudioBuffer, from first: Int64, now: Double) {
        possibleSpeech = true
        let by = frameEnd(first + Self.leadInFrames + Int64(minSpeechFrames))
        addHint(output, StreamMarker(.speechPossible, t: onsetTime(first), decided: now, resolvesBy: by))
    }

    /// Adds a hint marker if the block keeps room for decisions after it.
    private func addHint(_ output: AudioBuffer, _ m: StreamMarker) {
        if output.markerCount < AudioBuffer.markerCapacity - 2 { output.addMarker(m) }
    }

    public func publicEvent(_ raw: NodeEvent, nodeId: String) -> EngineEvent? {
        if raw.kind == Self.probabilityKind {
            return .probability(node: nodeId, t: raw.t, p: raw.values.0)
        }
        return raw.standardEvent(nodeId: nodeId)
    }
}
