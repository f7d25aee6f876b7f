import AudioGraph
import AudioGraphCore
import Foundation

/// Prints engine events: JSON lines on stdout with `--json`, otherwise readable lines: the
/// finals on stdout, everything else on stderr (errors and warnings as one `audiograph:`
/// line each), above the ``LiveDisplay`` when stdout is a terminal. Called on the engine's
/// delivery thread, which it never makes wait for a reader: every line goes through ``output``.
final class EventPrinter: Sendable {
    let json: Bool
    /// Where every line goes (its owner flushes it before the process ends).
    let output: OutputQueue
    let stderrIsTTY = isatty(STDERR_FILENO) == 1

    /// Overruns and underruns per node, for the line printed at exit.
    private let losses = Locked<[String: (lost: Int, dry: Int)]>([:])
    /// A device's line as opened (the latency asked for), held until the server reports
    /// the stream's figures once it runs, so the terminal shows one line per device.
    private let devices = Locked<(opened: [String: String], shown: Set<String>)>(([:], []))

    /// Whether an error the run reported was the model's (exit status 2, as when the model
    /// fails before the run starts; a language model finishes loading while the run goes on).
    var sawModelError: Bool { modelError.withLock { $0 } }
    private let modelError = Locked(false)

    /// The live area at the bottom of the terminal (partials, status, level), or nil.
    let display: LiveDisplay?
    let style: TerminalStyle

    init(json: Bool, output: OutputQueue, display: LiveDisplay? = nil) {
        self.json = json
        self.output = output
        self.display = json ? nil : display
        style = TerminalStyle(isTTY: !json && isatty(STDOUT_FILENO) == 1)
    }

    /// One line summing up lost audio (nil when nothing was lost).
    var lossSummary: String? {
        let l = losses.withLock { $0 }
        guard !l.isEmpty else { return nil }
        let parts = l.keys.sorted().map { node -> String in
            let (lost, dry) = l[node]!
            return "node \"\(node)\" " + [lost > 0 ? "\(lost) lost to overruns" : nil,
                                         dry > 0 ? "\(dry) underruns" : nil]
                .compactMap { $0 }.joined(separator: ", ")
        }
        return "audiograph: audio lost: " + parts.joined(separator: "; ")
    }

    func print(_ event: EngineEvent) {
        if case .error(let e) = event, e.code == .model { modelError.withLock { $0 = true } }
        switch event {
        case .overrun(let node, let lost): losses.withLock { $0[node, default: (0, 0)].lost += lost }
        case .underrun(let node, let count, let frames):
            losses.withLock { $0[node, default: (0, 0)].dry += max(count, frames > 0 ? 1 : 0) }
        default: break
        }
        if json {
            out(event.jsonLine)
            switch event {
            case .error(let e): err("audiograph: \(e.description)")
            default: break
            }
            return
        }
        switch event {
        case .state, .probability: break
        case .end(_, let suggestion):
            // A run too short for the server's figures shows the device as opened.
            for line in devices.withLock({ d in defer { d.opened.removeAll() }; return d.opened.values.sorted() }) { err(line) }
            if let suggestion { err("audiograph: suggestion: \(suggestion)") }
        case .device(let node, let name, let format, let latency):
            let line = String(format: "audiograph: node \"%@\": %@, %@, latency %.1f ms", node, name, format.description, latency * 1000)
            let show = devices.withLock { d -> Bool in
                if !d.shown.contains(node) && d.opened[node] == nil {
                    d.opened[node] = line  // as opened: wait for the server's figures
                    return false
                }
                d.opened[node] = nil
                d.shown.insert(node)
                return true
            }
            if show { err(line) }
        case .level(let node, let t, let rms, let peak):
            info(String(format: "%8.3f s  %@  level  rms %6.1f dBFS  peak %6.1f dBFS", t, node, rms, peak))
        case .speechStart(let node, let t, _):
            info(String(format: "%8.3f s  %@  speech starts", t, node))
        case .speechEnd(let node, let t, _):
            info(String(format: "%8.3f s  %@  speech ends", t, node))
        case .utteranceEnd(let node, let u, let t, _):
            info(String(format: "%8.3f s  %@  utterance %d ends", t, node, u))
        case .partial(_, _, let text):
            // Results may come from a speech server (remote-recognizer): shown, never obeyed.
            display?.setPartial(VisibleText.escaped(text))
        case .final(_, let r):
            display?.setPartial(nil)
            // An utterance with no word in it (a cough, words a grammar does not have) says so.
            out(String(format: "%8.3f s  [%d] ", r.start, r.utterance)
                + (r.text.isEmpty ? "(no words)" : style.paint(VisibleText.escaped(r.text), "1") + String(format: "  (confidence %.2f)", r.confidence)))
        case .speakStart(let node, _, let text, let t):
            info(String(format: "%8.3f s  %@  says: %@", t, node, text))
        case .speakEnd(let node, _, let t, let cancelled):
            if cancelled { info(String(format: "%8.3f s  %@  stopped speaking", t, node)) }
        case .custom:
            switch event.conversation {
            case let (node, .wake(phrase, t))?:
                info(String(format: "%8.3f s  %@  heard \"%@\"", t, node, phrase))
            case let (_, .assistant(state, reason, t))?:
                display?.setState(state.rawValue)
                info(String(format: "%8.3f s  -- %@", t, state.rawValue + (reason.map { " (\($0.rawValue))" } ?? "")))
            case let (node, .bargeIn(t))?:
                info(String(format: "%8.3f s  %@  interrupted by the user", t, node))
            case let (node, .echoDelay(delay, t))?:
                info(String(format: "%8.3f s  %@  echo comes back %.0f ms late", t, node, delay * 1000))
            case let (node, .echoHeld(below, t))?:
                info(String(format: "%8.3f s  %@  holds the echo (%.0f dB under what plays)", t, node, below))
            case (_, .earcon)?, nil:
                break
            }
        case .warning(let node, let message):
            err("audiograph: warning: " + (node.map { "node \"\($0)\": " } ?? "") + message)
        case .overrun(let node, let lost):
            err("audiograph: warning: node \"\(node)\": \(lost) lost (a queue was full)")
        case .underrun(let node, let count, let frames):
            err("audiograph: warning: node \"\(node)\": playback ran dry" + (count > 0 ? " \(count)x" : "")
                + (frames > 0 ? ", \(frames) frames of silence played" : ""))
        case .error(let e):
            err("audiograph: \(e.description)")
        }
    }

    /// Reports a failure that happened before the run started (JSON mode gets the events too).
    func failedBeforeStart(_ e: EngineError) {
        if json {
            out(EngineEvent.error(e).jsonLine)
            out(EngineEvent.end(.error).jsonLine)
        }
    }

    /// A line about the run other than a result (vad, end of speech, the assistant's states,
    /// what it says): on a terminal above the live area, otherwise on stderr, so stdout
    /// piped to a file holds the finals alone.
    private func info(_ line: String) {
        let line = VisibleText.escaped(line)
        if let display { return display.printAbove(line) }
        output.write(line + "\n", to: STDERR_FILENO)
    }

    private func out(_ line: String) {
        if let display { return display.printAbove(line) }
        output.write(line + "\n", to: STDOUT_FILENO)
    }

    private func err(_ line: String) {
        let line = VisibleText.escaped(line)
        // On the same terminal as the live area: above it, not through it.
        if let display, stderrIsTTY { return display.printAbove(line, error: true) }
        output.write(line + "\n", to: STDERR_FILENO)
    }
}
