import AudioGraph
import AudioGraphServer
import CMalloc
import Foundation

/// `audiograph serve`: the speech server (Wyoming for Home Assistant, WebSocket for web and
/// mobile clients).
enum ServeCommand: Command {
    static let name = "serve"
    static let abstract = "Serve speech recognition and synthesis over Wyoming and WebSocket."
    static let help = """
        USAGE: audiograph serve [options]

        A speech server: clients stream audio and get text back, send text and get speech.
        Every session is a graph of --graphs (transcribe, dictation, command, wakeword, ...)
        fed with the client's audio at any rate. Listens on 127.0.0.1 unless told otherwise.

          Wyoming (Home Assistant): describe/info, transcribe + audio (streaming transcript
            events too), synthesize (and its streaming form), wake-word detection, ping.
          HTTP: GET /healthz (200 once the models are loaded), GET /metrics (Prometheus), GET /.
          WebSocket /: vosk-server's protocol (clients of vosk-server work unchanged).
          WebSocket /audiograph: audiograph's own protocol (CONTRACT.md): sessions with
            options, the --json events, speech output.

        OPTIONS:
          --wyoming URI           tcp://HOST:PORT, unix://PATH, stdio:// or none
                                  (default tcp://127.0.0.1:10300). A socket at PATH that
                                  nobody answers on (a killed server's) is replaced;
                                  anything else there is refused.
          --http HOST:PORT        HTTP and WebSocket, or none (default 127.0.0.1:2700;
                                  port 0 picks a free one, printed at start). Both
                                  listeners take IPv4 addresses (0.0.0.0: every
                                  interface; Debian's civetweb has no IPv6).
          --graphs DIR            Graph files sessions are built from (default: ./Graphs if
                                  present, else the first folder of bundled
                                  graphs `audiograph run --list` shows). Each
                                  is loaded at start; one that does not load
                                  stops the start (exit 2, naming it).
          --keys FILE             App keys for the WebSocket protocols: one app a line,
                                  ID KEY [MAX-SESSIONS]; clients send ?app=ID&key=KEY.
          --max-sessions N        Sessions at once, over all protocols (default 16); beyond,
                                  a new one is refused at once with "busy".
          --max-connections N     Client connections open at once, Wyoming and WebSocket,
                                  idle or not (default the larger of 128 and twice
                                  --max-sessions); beyond, a new one is answered
                                  "busy" and closed.
          --decoders N            Decoders running at once over all sessions (default: one
                                  per core; 0: no limit). The rest wait their turn: many
                                  decoders interleaved by the kernel share the caches badly.
          --spare-decoders N      Loaded models kept between sessions for the next ones of
                                  the same graph (default: one per graph plus one per
                                  core, about 75 MB each; the least recently used is
                                  freed past it; 0: each session loads its own).
          --max-session-seconds S Longest session in seconds of audio, heard or spoken
                                  (default 300; a Wyoming wake-word stream has none).
          --idle-timeout S        Close a connection silent this long (default 30).
          --max-message BYTES     Largest client message (default 1048576).
          --isolate               Each recognition session in a process of its own: a crash
                                  of one session's graph ends that session only (one process
                                  per graph waits ahead with its model loaded; README).
          --set NODE.PARAM=VALUE  Override a parameter in every graph with that node
                                  (repeatable; on 2 cores the graphs as they are kept 14-16
                                  live streams in real time; --set asr.second-pass=false costs
                                  about 1 point of WER for a fifth less CPU: README).
          -h, --help              Show this help.

        SIGTERM or Ctrl-C drains: /healthz says 503, new sessions are refused, sessions in
        flight finish (up to 30 s), then the server exits 0. One log line per session on stderr.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var args = Arguments(arguments)
        var config = ServerConfiguration()
        func number(_ name: String, _ range: ClosedRange<Double>) throws -> Double? {
            guard let v = try args.options(name).last else { return nil }
            guard let d = Double(v), range.contains(d) else {
                throw UsageError("\(name) \(v): expected a number from \(Int(range.lowerBound)) to \(Int(range.upperBound))")
            }
            return d
        }
        // Counts are whole: "--max-sessions 2.5" was taken as 2.
        func whole(_ name: String, _ range: ClosedRange<Int>) throws -> Int? {
            guard let v = try args.options(name).last else { return nil }
            guard let n = Int(v), range.contains(n) else {
                throw UsageError("\(name) \(v): expected a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return n
        }
        if let w = try args.options("--wyoming").last { config.wyoming = w == "none" ? nil : w }
        if let h = try args.options("--http").last { config.http = h == "none" ? nil : h }
        if let n = try whole("--max-sessions", 1...10_000) { config.maxSessions = n }
        config.maxConnections = max(config.maxConnections, 2 * config.maxSessions)
        if let n = try whole("--max-connections", 1...10_000) {
            guard n >= config.maxSessions else {
                throw UsageError("--max-connections \(n): below --max-sessions \(config.maxSessions) (each session needs a connection)")
            }
            config.maxConnections = n
        }
        if let n = try whole("--decoders", 0...1024) { config.decoders = n }
        if let n = try whole("--spare-decoders", 0...1024) { config.spareDecoders = n }
        if let s = try number("--max-session-seconds", 1...86_400) { config.maxSessionSeconds = s }
        if let s = try number("--idle-timeout", 1...86_400) { config.idleSeconds = s }
        if let b = try whole("--max-message", 1024...(256 * 1024 * 1024)) { config.maxMessageBytes = b }
        let graphs = try args.options("--graphs").last
        let keys = try args.options("--keys").last
        config.settings = try args.options("--set")
        config.isolateSessions = args.flag("--isolate")
        if args.flag("--session-worker") {
            // A session process of `--isolate`: started by the server, not by hand.
            let warm = try args.options("--warm").last
            try args.finish(name)
            SessionWorker.runChild(graphs: graphs ?? "Graphs", settings: config.settings, warm: warm)
        }
        try args.finish(name)
        if config.wyoming == nil && config.http == nil { throw UsageError("--wyoming none and --http none: nothing to listen on") }
        // glibc gives threads that allocate at once heaps of their own, up to 8 per core, and a
        // heap keeps what its sessions freed. Sessions run on civetweb's worker threads, one
        // per connection, so each new worker's heap kept a model's worth: 12 sessions one
        // after another, each with its own vocabulary, left the idle server at 554 MB, 241 MB
        // with 2 heaps per core. The audio path does not allocate, so fewer heaps cost it nothing.
        mallopt(M_ARENA_MAX, Int32(2 * ProcessInfo.processInfo.activeProcessorCount))
        do {
            if let keys { config.keys = try AppKeys(file: keys) }
            config.graphs = graphs ?? (FileManager.default.fileExists(atPath: "Graphs/transcribe.json") ? "Graphs"
                : GraphLocator.folders.first { FileManager.default.fileExists(atPath: $0 + "/transcribe.json") } ?? "Graphs")
            let log: @Sendable (String) -> Void = { StandardStreams.writeError(VisibleText.escaped($0) + "\n") }
            let server = try SpeechServer(config, log: log)
            let signals = SignalHandler()
            try server.start()
            signals.attach(stop: {
                server.drain(timeout: 30)
                log("serve: stopped")
                exit(0)
            }, cancel: { exit(0) })
            server.wait()
            server.drain(timeout: 30)
            return 0
        } catch let e as ServerError {
            throw UsageError(e.description)
        }
    }
}
