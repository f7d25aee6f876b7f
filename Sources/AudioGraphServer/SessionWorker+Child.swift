import AudioGraph
import AudioGraphCore
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The worker's side (`audiograph serve --session-worker`): one session, read from stdin,
/// its events written to stdout (see ``SessionWorker``).
extension SessionWorker {
    /// Lines to the server go out whole, from the delivery thread and the input loop; the
    /// session's first events (its state, as it starts) wait here until the start reply is out.
    private static let childOutput = Mutex<[String]?>([])

    /// Runs one session for the server that started this process, then exits: 0 after the
    /// session's end, 1 when the server's start line cannot be read.
    /// `warm`: the graph whose model it loads before its session comes (it is a spare).
    public static func runChild(graphs folder: String, settings: [String], warm: String?) -> Never {
        @Sendable func write(_ line: String) {
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { writeFully(1, $0) }
        }
        @Sendable func emit(_ line: String) {
            childOutput.withLock { held in
                if held != nil { held!.append(line) } else { write(line) }
            }
        }
        func reply(_ r: Reply) {
            childOutput.withLock { held in
                write(String(decoding: (try? JSONEncoder().encode(r)) ?? Data(), as: UTF8.self))
                for line in held ?? [] { write(line) }
                held = nil
            }
        }
        CStandardOutput.discard()  // descriptor 1 is the reply stream: C libraries' stray text stays out
        // Started ahead of its session (WorkerPool): the graph's model is loaded, and kept,
        // while the server has no session for it yet.
        let catalog = try? ServerGraphs(folder: folder, settings: settings)
        RecognitionSession.keepsLoadedModels = true
        if let catalog, let warm, catalog.entries[warm] != nil { warmUp(catalog, warm) }
        let lines = LineReader(fd: 0)
        guard let first = lines.next(), let start = try? JSONDecoder().decode(Start.self, from: Data(first.utf8)) else {
            reply(Reply(started: false, failed: "session process: no start line from the server", code: "session"))
            exit(1)
        }
        let ended = Atomic<Bool>(false)
        let endWritten = DispatchSemaphore(value: 0)
        let stream: StreamingRecognition
        do {
            guard let catalog else { throw StartFailure(description: "session process: --graphs \(folder) does not load") }
            stream = try StreamingRecognition(catalog: catalog, options: start.options, rate: start.rate, channels: start.channels,
                                              width: start.width) { e in
                emit(e.jsonLine)
                if case .end = e {
                    ended.store(true, ordering: .releasing)
                    endWritten.signal()
                }
            }
        } catch {
            reply(Reply(started: false, failed: "\(error)", code: error is ServerError ? "bad-request" : "session"))
            exit(0)
        }
        // The session has its decoder: the others are let go.
        RecognitionSession.keepsLoadedModels = false
        reply(Reply(started: true))
        var payload = [UInt8](repeating: 0, count: 1 << 16)
        var header = [UInt8](repeating: 0, count: 5)
        var finished = false
        while lines.read(into: &header, count: 5) {
            let count = Int(UInt32(header[1]) | UInt32(header[2]) << 8 | UInt32(header[3]) << 16 | UInt32(header[4]) << 24)
            if payload.count < count { payload = [UInt8](repeating: 0, count: count) }
            guard lines.read(into: &payload, count: count) else { break }
            switch Message(rawValue: header[0]) {
            case .audio: _ = payload.withUnsafeBytes { stream.push(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            case .heard:
                stream.waitUntilHeard()
                emit(heardLine)
            case .finish: stream.finishAudio(); finished = true
            case .stop: stream.stop(); finished = true
            case .cancel: stream.cancel(); finished = true
            case nil: break
            }
        }
        // The server closed the input: after the session's end, or without asking for one
        // (it is going away): then what is pending is discarded.
        if !finished && !ended.load(ordering: .acquiring) { stream.cancel() }
        _ = stream.waitUntilEnded()
        // The end event is written by the delivery thread, around the session's end.
        _ = endWritten.wait(timeout: .now() + 2)
        exit(0)
    }

    /// Runs a session of graph `name` on a second of silence, so its model is loaded and kept.
    private static func warmUp(_ catalog: ServerGraphs, _ name: String) {
        guard let s = try? StreamingRecognition(catalog: catalog, options: .init(graph: name), rate: 16000, channels: 1, width: 2, onEvent: { _ in })
        else { return }
        let silence = [UInt8](repeating: 0, count: 32000)
        silence.withUnsafeBytes { _ = s.push($0) }
        s.finishAudio()
        _ = s.waitUntilEnded()
    }
}
