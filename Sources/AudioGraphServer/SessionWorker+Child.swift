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
    /// Lines to the server go out whole, from the delivery thread and the input loop.
    private static let childOutput = Mutex<Void>(())

    /// Runs one session for the server that started this process, then exits: 0 after the
    /// session's end, 1 when the server's start line cannot be read.
    public static func runChild(graphs folder: String, settings: [String]) -> Never {
        @Sendable func emit(_ line: String) {
            childOutput.withLock { _ in
                let bytes = Array((line + "\n").utf8)
                _ = bytes.withUnsafeBytes { writeAll(1, $0) }
            }
        }
        func reply(_ r: Reply) {
            emit(String(decoding: (try? JSONEncoder().encode(r)) ?? Data(), as: UTF8.self))
        }
        let lines = LineReader(fd: 0)
        guard let first = lines.next(), let start = try? JSONDecoder().decode(Start.self, from: Data(first.utf8)) else {
            reply(Reply(started: false, failed: "session process: no start line from the server", code: "session"))
            exit(1)
        }
        let ended = Atomic<Bool>(false)
        let endWritten = DispatchSemaphore(value: 0)
        let stream: StreamingRecognition
        do {
            let catalog = try ServerGraphs(folder: folder, settings: settings)
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
}
