import AudioGraph
import AudioGraphCore
import Foundation

/// `audiograph run GRAPH`: runs a graph until its sources end, the session ends, or Ctrl-C.
enum RunCommand: Command {
    static let name = "run"
    static let abstract = "Run a graph until its inputs end or Ctrl-C."
    static let help = """
        USAGE: audiograph run GRAPH.json [--source [NODE=]FILE]... [--sink [NODE=]FILE]... [--set NODE.PARAM=VALUE]... [--server URL [--server-ca FILE]] [--json] [--realtime]
               audiograph run --list

        Runs the graph. GRAPH may also be the name of a bundled graph (`audiograph run
        dictation`): without such a file here, it is looked for in $AUDIOGRAPH_GRAPHS, in
        ./graphs, in share/audiograph/graphs beside the binary (Tools/install), in the
        repository an uninstalled build was made in, then in /usr/local and /usr.
        File inputs run as fast as the graph can go unless --realtime is
        given; both give identical output and events. Ctrl-C, SIGTERM or SIGHUP stops (the
        audio already read drains through the graph, the utterance in flight gets its final
        result, files are finalised; exit 0); a second one cancels.
        On a terminal the bottom lines show, redrawn in place, the state, the time (or the
        progress through a file), the input level and the partial result; finals and events
        scroll above them (not with TERM=dumb, which gets the lines alone). Colour only on a
        terminal and never with NO_COLOR set.

        OPTIONS:
          --source FILE           Replace the graph's live input with a file source reading FILE.
          --source NODE=FILE      Replace input NODE (repeatable, for graphs with several inputs;
                                  a file with "=" in its name: ./take=2.wav).
          --source -              Read WAV audio from standard input, to its end (a pipe:
                                  `ffmpeg -i memo.m4a -f wav - | audiograph run transcribe --source -`).
          --sink FILE             Replace the graph's playback (pulse-sink) with a WAV file (e.g. the
                                  assistant's answers, offline).
          --sink NODE=FILE        Replace playback node NODE (repeatable).
          --set NODE.PARAM=VALUE  Override a node parameter (repeatable).
          --server URL            Recognise and speak on the speech server at URL (ws://HOST:PORT,
                                  an `audiograph serve`): recognizers become remote-recognizer
                                  nodes (a wake word too), speech-synths remote-synth nodes;
                                  capture, vad, end of speech, earcons and playback stay here.
                                  For wss:// the server's certificate must be trusted by the
                                  system and name the URL's host.
          --server-ca FILE        Trust the certificates in FILE (PEM) for a wss:// server's
                                  instead: its own, or its private authority's.
          --json                  Print one JSON event per line on stdout and nothing else there.
          --realtime              Pace file input to real time.
          --block FRAMES          Frames per block at the sources (default 1024).
          --list                  List the graphs found by name and where they are.
          -h, --help              Show this help.

        EVENTS (--json): state, device, level, vad-probability, speech-start, speech-end,
        utterance-end, partial, final, wake, assistant, earcon, speak-start, speak-end,
        warning, overrun, underrun, error, end (with reason
        end-of-input, end-of-speech, no-speech, stopped, cancelled or error).
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var args = Arguments(arguments)
        if args.flag("--list") {
            try args.finish(name)
            let graphs = GraphLocator.installed()
            if graphs.isEmpty { print("no graphs found by name (looked in: \(GraphLocator.folders.joined(separator: ", ")))") }
            let width = (graphs.map(\.name.count).max() ?? 0) + 2
            for g in graphs { print(g.name.padding(g.name, to: width) + g.description + "  (\(g.folder))") }
            return 0
        }
        let sources = try args.options("--source"), sets = try args.options("--set"), sinks = try args.options("--sink")
        let json = args.flag("--json"), realtime = args.flag("--realtime")
        let server = try args.options("--server").last
        let serverCertificates = try args.options("--server-ca").last
        let blockText = try args.options("--block").last
        guard let path = try? args.positional("graph file") else {
            throw UsageError("run: missing graph file (a graph file, or a bundled graph's name: `audiograph run --list`; "
                             + "for example `audiograph run transcribe --source talk.wav`; `audiograph run --help`)")
        }
        // A sound file where an option was meant: `run transcribe talk.wav`.
        if let extra = args.positionals().first {
            let sound = ["wav", "wave", "flac", "ogg", "opus", "mp3", "aiff", "aif", "caf"]
                .contains((extra as NSString).pathExtension.lowercased())
            throw UsageError("run: unexpected argument \"\(extra)\"" + (sound ? " (to run the graph on a file: --source \(extra))" : ""))
        }
        try args.finish(name)
        var options = AudioEngine.Options(realtime: realtime)
        if let blockText {
            guard let b = Int(blockText), (16...65536).contains(b) else {
                throw UsageError("--block: expected a whole number of frames in 16...65536, got \"\(blockText)\"")
            }
            options.blockFrames = b
        }

        let signals = SignalHandler()
        let standardInput = try StandardInputAudio.open(for: sources)
        let graph = try GraphLoading.load(path, sources: sources, sinks: sinks, sets: sets, server: server,
                                            serverCertificates: serverCertificates, checkSources: true,
                                          standardInput: standardInput?.format)
        GraphLoading.printNotices(graph)
        // The live area (partial, status, level) only on a terminal that can move its cursor
        // (not TERM=dumb: Emacs's shell, some CI logs), never with --json.
        let output = OutputQueue()
        let display = !json && isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
            ? LiveDisplay(style: TerminalStyle(isTTY: true), output: output) : nil
        let printer = EventPrinter(json: json, output: output, display: display)
        // Whatever ends the run, what it printed is written first (a thrown error's line after it).
        defer { output.flush() }
        let session: RecognitionSession
        do {
            session = try RecognitionSession(validated: graph, options: options)
        } catch let e as EngineError {
            printer.failedBeforeStart(e)
            throw e
        }
        let engine = session.engine
        session.onEvent { printer.print($0) }
        if let display {
            // The input's level for the meter: a tap on the graph's (first live) source.
            let sources = graph.nodes.filter { $0.descriptor.role == .source }
            if let input = sources.first(where: { $0.descriptor.isLive }) ?? sources.first {
                _ = try? engine.installTap(onNode: input.id, bufferSize: Int(engine.format(ofNode: input.id)?.sampleRate ?? 16000) / 10) { buffer in
                    var sum: Float = 0
                    let x = buffer.samples(0)
                    for v in x { sum += v * v }
                    let rms = x.isEmpty ? 0 : (sum / Float(x.count)).squareRoot()
                    display.setLevel(rms > 0 ? Double(20 * log10(rms)) : -120)
                }
            }
        }
        let started = monotonicSeconds()
        try session.start()
        if let standardInput { StandardInputAudio.feed(standardInput, into: engine, graph: graph, output: output) }
        signals.attach(stop: { try? session.stop() }, cancel: { try? session.cancel() })
        var reason: EndReason?
        while reason == nil {
            display?.setTime(position: engine.position, duration: engine.duration)
            reason = engine.waitUntilEnded(timeout: 0.1)
        }
        display?.finish()
        signals.cancel()
        if let losses = printer.lossSummary { output.write(losses + "\n", to: STDERR_FILENO) }
        // After an error the error line says what happened; a model's is about no audio at all.
        if !json && !(reason == .error && printer.sawModelError) {
            let wall = monotonicSeconds() - started
            let audio = engine.position
            // A live or paced run goes at the audio's pace: its speed says nothing.
            let paced = realtime || graph.nodes.contains { $0.descriptor.isLive }
            let speed = wall > 0 && audio > 0 && !paced ? ", " + RealTimeSpeed.text(audio: audio, wall: wall) : ""
            // The files the run wrote (its wav-sinks), where a user looks for them.
            let written = graph.nodes.filter { $0.descriptor.type == "wav-sink" }.compactMap { $0.parameters.string("path") }
            let wrote = reason == .error || written.isEmpty ? "" : "; wrote " + written.map(VisibleText.escaped).joined(separator: ", ")
            output.write(String(format: "audiograph: ended (%@): %.2f s of audio in %.3f s%@%@\n",
                                reason!.rawValue, audio, wall, speed, wrote), to: STDERR_FILENO)
        }
        var status: Int32 = reason == .error ? (printer.sawModelError ? 2 : 1) : 0
        // All the run owes is out: its events written, its sinks finished (files closed,
        // playback drained). Taking the graph apart now would only hand memory back to a
        // process about to end (freeing the recognizer's model alone takes ~25 ms), so the
        // process ends with the session still whole.
        output.flush()  // exit() runs no defer
        // A transcript that did not reach its file (`> talk.txt` on a full disk) is a failure.
        status = CLI.reportingStandardOutput(status, command: name, failure: output.standardOutputFailure)
        withExtendedLifetime(session) { exit(status) }
    }
}
