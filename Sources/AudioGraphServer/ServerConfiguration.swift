import Foundation

/// What `audiograph serve` listens on and what it allows (its flags; CONTRACT.md).
public struct ServerConfiguration: Sendable {
    /// Where Wyoming is spoken: `tcp://HOST:PORT`, `unix://PATH`, `stdio://`, or nil for none.
    public var wyoming: String? = "tcp://127.0.0.1:10300"
    /// HTTP and WebSocket `HOST:PORT`, or nil for none. Port 0 picks a free one (reported).
    public var http: String? = "127.0.0.1:2700"
    /// Folder of the graph files sessions are built from (`transcribe.json`, `dictation.json`,
    /// `command.json`, `wakeword.json`, ...): a client names one (`graph`, Wyoming's model name).
    public var graphs: String = "Graphs"
    /// Parameter overrides, `NODE.PARAM=VALUE` (`--set`), applied to every graph of `graphs`
    /// that has a node of that id (for example `asr.second-pass=false` on every recognizer).
    public var settings: [String] = []
    /// Each recognition session in a process of its own (`--isolate`): a crash of a session's
    /// graph ends that session only. Costs a model load at each session's start.
    public var isolateSessions = false
    /// App keys (`--keys FILE`); nil: the WebSocket protocols take anyone.
    public var keys: AppKeys?
    /// Decoders (and other work behind the audio) running at once, over all sessions of this
    /// process: the rest wait their turn, first come first served (``WorkSlots``). Nil: one
    /// per core; 0: no limit (the kernel interleaves them all).
    public var decoders: Int?
    /// Loaded models kept between sessions for the next ones of the same graph and settings
    /// (the least recently used freed past it). Nil: one per graph plus one per core; 0: every
    /// session loads its own.
    public var spareDecoders: Int?
    /// Sessions in flight at once, over all protocols; beyond it a new one is refused "busy".
    public var maxSessions = 16
    /// Client connections open at once (Wyoming and WebSocket, with a session or idle); beyond
    /// it a new one is answered "busy" and closed. Plain HTTP requests are not counted.
    public var maxConnections = 128
    /// Longest session, in seconds of audio: heard (recognition) or spoken (speech output). A
    /// Wyoming wake-word stream has no limit (a satellite streams for as long as it runs).
    public var maxSessionSeconds = 300.0
    /// A connection that sends nothing for this long is closed (seconds).
    public var idleSeconds = 30.0
    /// Largest message a client may send (a WebSocket message; a Wyoming header line, data
    /// block or payload), in bytes.
    public var maxMessageBytes = 1 << 20
    /// A client whose replies wait unread past this many bytes is dropped (it stopped reading).
    public var maxPendingOutputBytes = 8 << 20

    /// The defaults of CONTRACT.md.
    public init() {}
}

/// A configuration or start-up mistake of the server (a bad address, a port in use, a keys file).
public struct ServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, naming the flag or file.
    public let description: String
    /// Makes one.
    public init(_ description: String) { self.description = description }
}
