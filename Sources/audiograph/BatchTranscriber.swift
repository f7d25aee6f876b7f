import AudioGraph
import AudioGraphCore
import Foundation

/// Runs the batch's graph over one input and writes its results: the JSON lines
/// `audiograph run GRAPH --source FILE --json` prints, and SRT and WebVTT subtitles from
/// the final results' word times. Each file is written under a temporary name and renamed
/// into place, the JSON lines last, so a result file that exists is whole.
struct BatchTranscriber: Sendable {
    let graph: String
    let sets: [String]
    let options: AudioEngine.Options

    /// How one input went.
    enum Outcome: Sendable {
        /// Transcribed: seconds of audio, utterances.
        case done(audio: Double, utterances: Int)
        /// Not transcribed: why (one line).
        case failed(String)
        /// The job was interrupted while this input ran: nothing written.
        case interrupted
    }

    /// Transcribes `input`; `progress` gets the seconds read and the input's duration while
    /// it runs; `interrupted` is polled to cancel it.
    func run(_ input: BatchInputs.Input, progress: (Double, Double?) -> Void,
             interrupted: () -> Bool) -> Outcome {
        let collected = Locked<(lines: [String], finals: [RecognitionResult], error: String?)>(([], [], nil))
        let session: RecognitionSession
        do {
            let g = try GraphLoading.load(graph, sources: [input.path], sets: sets)
            session = try RecognitionSession(validated: g, options: options)
        } catch {
            return .failed(Self.describe(error))
        }
        session.onEvent { e in
            let line = e.jsonLine
            collected.withLock { c in
                c.lines.append(line)
                switch e {
                case .final(_, let r): c.finals.append(r)
                case .error(let err): if c.error == nil { c.error = err.description }
                default: break
                }
            }
        }
        do { try session.start() } catch { return .failed(Self.describe(error)) }
        var reason: EndReason?
        var cancelled = false
        while reason == nil {
            if !cancelled && interrupted() {
                cancelled = true
                try? session.cancel()
            }
            progress(session.position, session.duration)
            reason = session.engine.waitUntilEnded(timeout: 0.1)
        }
        let result = collected.withLock { $0 }
        if reason == .error { return .failed(result.error ?? "the run ended with an error") }
        if reason == .cancelled || cancelled { return .interrupted }
        let subtitles = Subtitles(result.finals)
        let contents = ["srt": subtitles.srt, "vtt": subtitles.webVTT,
                        "jsonl": result.lines.map { $0 + "\n" }.joined()]
        // All three written beside their places first, then renamed: a full disk leaves none
        // of them half there, and no temporary behind.
        let paths = BatchInputs.formats.map { (format: $0, path: input.output + "." + $0, temporary: input.output + "." + $0 + ".partial") }
        do {
            let folder = (input.output as NSString).deletingLastPathComponent
            if let failure = BatchOutput.makeFolders(folder.isEmpty ? "." : folder) { throw EngineError(.io, failure) }
            for p in paths { try Data(contents[p.format]!.utf8).write(to: URL(fileURLWithPath: p.temporary)) }
            for p in paths where rename(p.temporary, p.path) != 0 {
                throw EngineError(.io, "cannot rename to \(p.path): \(String(cString: strerror(errno)))", file: p.temporary)
            }
        } catch {
            for p in paths { unlink(p.temporary) }
            return .failed("cannot write the results: \(Self.describe(error))")
        }
        return .done(audio: session.position, utterances: result.finals.count)
    }

    /// One line for an error, as `audiograph run` would print it (without the prefix).
    static func describe(_ error: any Error) -> String {
        CLI.describe(error).lines.joined(separator: "; ")
    }
}
