import AudioGraphConversation
import AudioGraphCore
import Foundation

/// `end-of-speech`: turns the VAD's speech boundaries into utterance boundaries and ends
/// the session when nobody speaks (SpeechKit's end-of-speech detection).
///
/// An utterance starts at the first `speech-start` and ends `silence` seconds after a
/// `speech-end` with no new speech in between, so a pause shorter than the window never
/// splits it: when the window elapses while the vad still weighs sound that began inside
/// it (its `speechPossible` hint), the decision waits for the vad's verdict.
/// The `utterance-end` event is back-dated to the end of speech (`t`) and says when the
/// window elapsed (`decided`); a marker carries it to the recognizer, ahead of any marker
/// decided after it. Audio passes through unchanged.
public final class EndOfSpeechDetector: AudioNode {
    public static let descriptor = NodeDescriptor(
        type: "end-of-speech",
        summary: "Closes utterances after a silence (none/short 0.5 s/long 1.2 s); ends the session on no speech.",
        role: .processor,
        parameters: [
            ParameterSpec("mode", .choice(["none", "short", "long"]), default: "short",
                          help: "none: never ends an utterance; short: 0.5 s of silence (commands); long: 1.2 s (dictation)"),
            ParameterSpec("silence", .number(0.05...30), unit: "s", help: "silence that ends an utterance (overrides mode)"),
            ParameterSpec("complete", .number(0.05...30), unit: "s",
                          help: "grammar-aware: with a recognizer's grammar search downstream, the silence that ends an utterance once its hypothesis is a whole sentence of the grammar (setting it or `incomplete` turns this on; \(completeDefault) s when only `incomplete` is set)"),
            ParameterSpec("incomplete", .number(0.05...30), unit: "s",
                          help: "grammar-aware: the silence that ends an utterance whose hypothesis is not (yet) a whole sentence (\(incompleteDefault) s when only `complete` is set)"),
            ParameterSpec("no-speech-timeout", .number(0...3600), default: 5, unit: "s",
                          help: "end the session (reason no-speech) if nobody speaks this long from the start; 0: never"),
            ParameterSpec("max-duration", .number(0...3600), default: 30, unit: "s",
                          help: "past this, an utterance closes at the next pause of speech (at the latest 10 s later, even mid-speech); 0: no limit"),
        ],
        markers: [.utteranceEnd],
        controls: [.input("verdict", .verdict, help: "a recognizer's grammar verdict: with `complete`/`incomplete`, the window by whether the command is whole")],
        make: { p throws(GraphError) in EndOfSpeechDetector(p) })

    let silence: Double?
    /// Grammar-aware windows (complete sentence, incomplete), or nil.
    let grammarWindows: (complete: Double, incomplete: Double)?
    private var hypothesis = HypothesisProgress()
    private var isLive = false
    /// The vad announces sound at the end of the 20-32 ms frame it is first heard in, up to
    /// 0.03 s after the `t` it gives it: the window waits that long for the announcement.
    static let announceLag = 0.03
    /// The grammar-aware windows when only the other one is given (these two parameters have
    /// no default of their own: setting either turns the mode on).
    static let completeDefault = 0.25
    static let incompleteDefault = 1.2
    /// How long past `max-duration` an utterance may run waiting for a pause.
    static let hardLimitExtra = 10.0
    let noSpeechTimeout: Double
    let maxDuration: Double
    private var rate = 16000.0
    private var samples: Int64 = 0
    private var utterance = 0
    private var inUtterance = false
    private var speaking = false
    private var utteranceStart = 0.0
    private var lastSpeechEnd = 0.0
    /// Until when possible speech that began inside the window holds the utterance open.
    private var heldUntil = 0.0
    private var heardSpeech = false
    private var timedOut = false

    init(_ p: ResolvedParameters) {
        if let s = p["silence"], case .number(let v) = s {
            silence = v
        } else {
            switch p.string("mode") {
            case "none": silence = nil
            case "long": silence = 1.2
            default: silence = 0.5
            }
        }
        if p["complete"] != nil || p["incomplete"] != nil {
            grammarWindows = (p.optionalNumber("complete") ?? Self.completeDefault,
                              p.optionalNumber("incomplete") ?? Self.incompleteDefault)
        } else {
            grammarWindows = nil
        }
        noSpeechTimeout = p.number("no-speech-timeout")
        maxDuration = p.number("max-duration")
    }

    public func prepare(_ context: PrepareContext) throws(EngineError) {
        rate = context.inputFormats[0].sampleRate
        hypothesis = context.channel(.verdict)
        isLive = context.isLive
    }

    public func reset() {
        samples = 0
        utterance = 0
        inUtterance = false
        speaking = false
        heardSpeech = false
        timedOut = false
        heldUntil = 0
    }

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        let input = io.inputs[0], output = io.outputs[0]
        let n = input.frameLength
        if awaitsVerdict(input, from: Double(samples) / rate, to: Double(samples + Int64(n)) / rate) { return .notReady }
        output.copyFrames(from: input, count: n)
        output.frameLength = n
        let blockStart = Double(samples) / rate
        samples += Int64(n)
        let now = Double(samples) / rate
        // Markers go out in stream order: an utterance-end decided before (or because of) a
        // vad marker is added before it, so the recognizer closes one utterance before it
        // sees the next one start.
        for m in input.markers {
            if let due = closes(by: m.decided), m.decided >= due {
                close(&io, output, t: lastSpeechEnd, decided: max(blockStart, due))
            }
            switch m.kind {
            case .speechStart:
                if inUtterance && !speaking, let w = window(by: m.decided), m.t - lastSpeechEnd >= w {
                    // The pause was longer than the window; the start came while possible speech held it.
                    close(&io, output, t: lastSpeechEnd, decided: m.decided)
                }
                speaking = true
                heardSpeech = true
                if !inUtterance {
                    inUtterance = true
                    utterance += 1
                    utteranceStart = m.t
                }
            case .speechEnd:
                speaking = false
                lastSpeechEnd = m.t
                heldUntil = 0
                if inUtterance && maxDuration > 0 && m.t - utteranceStart >= maxDuration {
                    close(&io, output, t: m.t, decided: m.decided)  // long enough: the first pause ends it
                }
            case .speechPossible:
                if inUtterance && !speaking, let silence, m.t < lastSpeechEnd + silence {
                    heldUntil = max(heldUntil, m.resolvesBy)
                }
            case .speechDropped:
                heldUntil = min(heldUntil, m.decided)
            case .utteranceEnd:
                break
            }
            output.addMarker(m)
        }
        if let due = closes(by: now), now >= due {
            close(&io, output, t: lastSpeechEnd, decided: max(blockStart, due))
        } else if inUtterance && maxDuration > 0 && now - utteranceStart >= maxDuration + Self.hardLimitExtra {
            let t = utteranceStart + maxDuration + Self.hardLimitExtra
            close(&io, output, t: t, decided: max(blockStart, t))
            if speaking {  // speech goes on: the next utterance starts where this one was cut
                inUtterance = true
                utterance += 1
                utteranceStart = t
                io.record(StreamMarker(.speechStart, t: t, decided: t), on: output)
            }
        }
        if io.inputsEnded && inUtterance {
            close(&io, output, t: speaking ? now : lastSpeechEnd, decided: now)
        }
        if !heardSpeech && !timedOut && noSpeechTimeout > 0 && now >= noSpeechTimeout {
            timedOut = true
            io.requestEnd(.noSpeech)
        }
        return .ok
    }

    /// When the silence window closes the open utterance, if it is in a pause: at its end,
    /// or once the vad has ruled on possible speech that began inside it. Grammar-aware,
    /// looking at stream time `now`: the short window when the recognizer's hypothesis at the
    /// pause is a whole sentence, the long one when it is not, the mode's when no grammar
    /// search listens. Nil: not yet known (the recognizer has not decoded that far).
    private func closes(by now: Double) -> Double? {
        guard inUtterance && !speaking, let w = window(by: now) else { return nil }
        return max(lastSpeechEnd + w + Self.announceLag, heldUntil)
    }

    /// The silence that ends the utterance in the current pause, as known at `now`: the
    /// mode's, or grammar-aware the complete or incomplete window once the recognizer has a
    /// verdict on the hypothesis at the pause (before the shorter window has elapsed, the
    /// shorter one: nothing can close earlier). Infinity: not known yet; nil: never.
    private func window(by now: Double) -> Double? {
        guard let g = grammarWindows, hypothesis.hasReporter else { return silence }
        let shortest = min(g.complete, silence ?? g.complete)
        guard now >= lastSpeechEnd + shortest + Self.announceLag else { return shortest }
        // The recognizer's verdict on the hypothesis up to the speech's end; nil: not known
        // yet, look again at the next block. With file input the render thread may run
        // seconds ahead of the decoder, so a block that may ask about audio the decoder has
        // been given is not processed before the verdict is there (``awaitsVerdict``: the
        // engine waits), and a file gives the decisions of a live run.
        switch hypothesis.verdict(asOf: lastSpeechEnd) {
        case .complete?: return g.complete
        case .incomplete?: return g.incomplete
        case .notTracking?: return silence
        case nil: return .infinity  // look again at the next block
        }
    }

    /// File input, grammar-aware: whether this block may ask for a verdict the decoder can
    /// give (about audio it has been given: up to `blockStart`) but has not given yet. The
    /// pauses it may ask about: the one in progress, and those that markers of this block
    /// begin; it asks once the shortest window from the pause has elapsed (by `blockEnd`).
    private func awaitsVerdict(_ input: AudioBuffer, from blockStart: Double, to blockEnd: Double) -> Bool {
        guard !isLive, let g = grammarWindows, hypothesis.hasReporter else { return false }
        let wait = min(g.complete, silence ?? g.complete) + Self.announceLag
        func unknown(_ t: Double) -> Bool {
            t <= blockStart && blockEnd >= t + wait && hypothesis.verdict(asOf: t) == nil
        }
        if inUtterance && !speaking && unknown(lastSpeechEnd) { return true }
        for m in input.markers where m.kind == .speechEnd && unknown(m.t) { return true }
        return false
    }

    private func close(_ io: inout ProcessIO, _ output: AudioBuffer, t: Double, decided: Double) {
        inUtterance = false
        io.record(StreamMarker(.utteranceEnd, t: t, decided: decided, utterance: Int32(utterance)), on: output)
    }
}
