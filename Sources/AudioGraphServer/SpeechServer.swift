import AudioGraph
import Foundation
import Synchronization

/// `audiograph serve`: the speech server SpeechKit-style apps, Home Assistant and web pages
/// talk to. Sessions are per connection (instances behind a load balancer are
/// interchangeable); each is a graph of the catalogue (``ServerGraphs``) fed by the client.
///
///     Wyoming (tcp/unix/stdio) ──► WyomingListener ──► WyomingConnection ─┐
///     HTTP :2700 (civetweb)    ──► HTTPServer ──► VoskSocket / AppSocket ─┼─► StreamingRecognition
///                                    └─ /healthz, /metrics, / (page)      │   (one engine each)
///                                                                         └─► Vocalizer (flite)
///
/// Every connection has a thread of its own (civetweb's workers, or one per Wyoming
/// connection); every session an engine with its own render and delivery threads: a session
/// that stalls or a client that stops reading holds up nobody else.
public final class SpeechServer: @unchecked Sendable {
    let configuration: ServerConfiguration
    let catalog: ServerGraphs
    let limiter: SessionLimiter
    /// Client connections open at once.
    let connections: ConnectionLimiter
    /// The counters `/metrics` shows.
    public let metrics = ServerMetrics()
    private let readyFlag = Atomic<Bool>(false)
    private let log: @Sendable (String) -> Void
    private var wyoming: WyomingListener?
    private var http: HTTPServer?
    /// The session processes of `--isolate` (nil: sessions run in this process).
    let workers: WorkerPool?

    /// Loads the graph catalogue; nothing listens until ``start()``. Throws ``ServerError``.
    public init(_ configuration: ServerConfiguration, log: @escaping @Sendable (String) -> Void) throws {
        self.configuration = configuration
        catalog = try ServerGraphs(folder: configuration.graphs, settings: configuration.settings)
        limiter = SessionLimiter(limit: configuration.maxSessions)
        connections = ConnectionLimiter(limit: configuration.maxConnections)
        self.log = log
        for s in catalog.skipped { log("serve: graph left out: \(s)") }
        // A client that closes while its answer is written (a Wyoming socket after its FIN, the
        // stdout of stdio://), or a session process that dies, is a broken pipe: an error
        // where it is written, not a signal that ends the server and everyone's sessions.
        // (civetweb ignores SIGPIPE itself, so a server without --http died of it alone.)
        signal(SIGPIPE, SIG_IGN)
        workers = configuration.isolateSessions ? WorkerPool(command: Self.workerCommand(configuration)) : nil
        for (s, names) in catalog.settings { log("serve: --set \(s) in \(names.joined(separator: ", "))") }
    }

    /// Starts listening, then loads the models (one session of each graph run on silence, so
    /// the first client does not wait for a model) and reports ready (`/healthz` 200).
    public func start() throws {
        let needed = OpenFileLimit.needed(by: configuration)
        let files = OpenFileLimit.raise(toAtLeast: needed)
        if files.soft < needed {
            log("serve: warning: at most \(files.soft) open files (ulimit -n; the hard limit is \(files.hard)) where "
                + "--max-connections \(configuration.maxConnections) needs about \(needed): past it new connections wait "
                + "and the HTTP listener spins a core until one closes (raise the hard limit, e.g. systemd's "
                + "LimitNOFILE=, or lower --max-connections)")
        }
        // Both listeners open before either is announced: a bad address of one leaves nothing
        // listening and nothing said but its error.
        if let address = configuration.http { http = try HTTPServer(address: address, server: self) }
        if let uri = configuration.wyoming {
            do {
                wyoming = try WyomingListener(uri: uri, server: self)
            } catch {
                http?.stop()
                throw error
            }
        }
        if let http {
            http.watchIdle()
            log("serve: http and websocket on \(http.boundAddress)")
        }
        if let wyoming { log("serve: wyoming on \(wyoming.boundDescription)") }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        RecognitionSession.loadedModelsLimit = configuration.spareDecoders ?? catalog.names.count + cores
        RecognitionSession.keepsLoadedModels = true
        let decoders = configuration.decoders ?? cores
        WorkSlots.limit = decoders > 0 ? WorkSlots(decoders) : nil
        // A graph that does not load would fail every session of it: the server does not start.
        let failed = catalog.names.compactMap { name in warmUp(name).map { (name: name, why: $0) } }
        if let first = failed.first {
            stop()
            let others = failed.dropFirst().map(\.name)
            throw ServerError("graph \(first.name) does not load: \(first.why)" + (others.isEmpty ? "" : " (nor do \(others.joined(separator: ", ")))"))
        }
        for name in catalog.names { workers?.refill(name) }
        readyFlag.store(true, ordering: .releasing)
        log("serve: ready (graphs: \(catalog.names.joined(separator: ", ")); at most \(configuration.maxSessions) sessions)")
    }

    /// Where HTTP listens (`HOST:PORT`, the port chosen when 0 was asked for).
    public var httpAddress: String? { http?.boundAddress }
    /// Where Wyoming listens.
    public var wyomingAddress: String? { wyoming?.boundDescription }

    /// Whether the models are loaded and new sessions are taken.
    public var isReady: Bool { readyFlag.load(ordering: .acquiring) && !limiter.isDraining }

    /// SIGTERM: refuse new sessions, let those in flight finish (at most `timeout` s), stop.
    public func drain(timeout: Double) {
        limiter.drain()
        log("serve: draining \(limiter.active) session(s)")
        let deadline = monotonicSeconds() + timeout
        while limiter.active > 0 && monotonicSeconds() < deadline { usleep(50_000) }
        stop()
    }

    /// Stops listening and closes connections.
    public func stop() {
        wyoming?.stop()
        http?.stop()
    }

    /// Blocks the calling thread for good (the CLI's main thread once started).
    public func wait() { wyoming?.waitForStdioEnd() ?? { while true { sleep(3600) } }() }

    func write(log line: String) { log(line) }

    /// Runs a session of graph `name` on a second of silence so its model is loaded and kept;
    /// why it does not load, if it does not.
    private func warmUp(_ name: String) -> String? {
        let started = monotonicSeconds()
        do {
            let s = try StreamingRecognition(catalog: catalog, options: .init(graph: name), rate: 16000, channels: 1, width: 2) { _ in }
            let silence = [UInt8](repeating: 0, count: 32000)
            silence.withUnsafeBytes { _ = s.push($0) }
            s.finishAudio()
            _ = s.waitUntilEnded()
            log(String(format: "serve: graph %@ loaded in %.2f s", name, monotonicSeconds() - started))
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// One log line at a session's end: who, what, how long, why.
    func logSession(_ wire: ServerMetrics.Wire, peer: String, app: String?, graph: String, audio: Double, wall: Double, reason: String) {
        log(String(format: "session %@ peer=%@ app=%@ graph=%@ audio=%.2fs wall=%.2fs end=%@",
                   wire.rawValue, peer, app ?? "-", graph, audio, wall, reason))
    }
}
