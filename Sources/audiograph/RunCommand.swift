import AudioGraph
import AudioGraphCore
import Foundation

/// `audiograph run GRAPH`: runs a graph until its sources end, the session ends, or Ctrl-C.
enum RunCommand: Command {
    static let name = "run"
    static let abstract = "Run a graph until its inputs end or Ctrl-C."
    static let help = """
        USAGE: audiograph run GRAPH.json [--source [NODE=]FILE]... [--sink [NODE=]FILE]... [--set NODE.PARAM=VALUE]... [--json] [--realtime]
               audiograph run --list

        Runs the graph. GRAPH may also be the name of an installed graph (`audiograph run
        dictation`): without such a file here, it is looked for in $AUDIOGRAPH_GRAPHS, then
        in share/audiograph/graphs beside the binary (Tools/install), /usr/local and /usr.
        File inputs run as fast as the graph can go unless --realtime is
        given; both give identical output and events. Ctrl-C, SIGTERM or SIGHUP stops (the
        audio already read drains through the graph, the utterance in flight gets its final
        result, files are finalised; exit 0); a second one cancels.

        OPTIONS:
          --source FILE           Replace the graph's live input with a file source reading FILE.
          --source NODE=FILE      Replace input NODE (repeatable, for graphs with several inputs).
          --sink FILE             Replace the graph's playback (pulse-sink) with a WAV file (e.g. the
                                  assistant's answers, offline).
          --sink NODE=FILE        Replace playback node NODE (repeatable).
          --set NODE.PARAM=VALUE  Override a node parameter (repeatable).
          --json                  Print one JSON event per line on stdout and nothing else there.
          --realtime              Pace file input to real time.
          --block FRAMES          Frames per block at the sources (default 1024).
          --list                  List the installed graphs and where they are.
          -h, --help              Show this help.

        EVENTS (--json): state, device, level, probability, speech-start, speech-end,
        utterance-end, partial, final, wake, assistant, earcon, speak-start, speak-end,
        warning, overrun, underrun, error, end (with reason
        end-of-input, end-of-speech, no-speech, stopped, cancelled or error).
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var args = Arguments(arguments)
        if args.flag("--list") {
            try args.finish(name)
            let graphs = GraphLocator.installed()
            if graphs.isEmpty { print("no installed graphs (looked in: \(GraphLocator.folders.joined(separator: ", ")))") }
            for g in graphs { print(g.name.padding(g.name, to: 14) + g.description + "  (\(g.folder))") }
            return 0
        }
        let sources = try args.options("--source"), sets = try args.options("--set"), sinks = try args.options("--sink")
        let json = args.flag("--json"), realtime = args.flag("--realtime")
        let blockText = try args.options("--block").last
        let path = try args.positional("graph file")
        try args.finish(name)
        var options = AudioEngine.Options(realtime: realtime)
        if let blockText {
            guard let b = Int(blockText), (16...65536).contains(b) else {
                throw UsageError("--block: expected a whole number of frames in 16...65536, got \"\(blockText)\"")
            }
            options.blockFrames = b
        }

        let signals = SignalHandler()
        let graph = try GraphLoading.load(path, sources: sources, sinks: sinks, sets: sets)
        let printer = EventPrinter(json: json)
        let session: RecognitionSession
        do {
            session = try RecognitionSession(validated: graph, options: options)
        } catch let e as EngineError {
            printer.failedBeforeStart(e)
            throw e
        }
        let engine = session.engine
        session.onEvent { printer.print($0) }
        let progress = ProgressBar(enabled: !json && isatty(STDERR_FILENO) == 1, duration: engine.duration)
        let started = Date()
        try session.start()
        signals.attach(stop: { try? session.stop() }, cancel: { try? session.cancel() })
        var reason: EndReason?
        while reason == nil {
            progress.update(position: engine.position)
            reason = engine.waitUntilEnded(timeout: 0.1)
        }
        progress.clear()
        signals.cancel()
        if let losses = printer.lossSummary { FileHandle.standardError.write(Data((losses + "\n").utf8)) }
        if !json {
            let wall = Date().timeIntervalSince(started)
            let audio = engine.position
            let speed = wall > 0 && audio > 0 ? String(format: ", %.0fx real time", audio / wall) : ""
            FileHandle.standardError.write(Data(String(format: "audiograph: ended (%@): %.2f s of audio in %.3f s%@\n",
                                                       reason!.rawValue, audio, wall, speed).utf8))
        }
        return reason == .error ? 1 : 0
    }
}
