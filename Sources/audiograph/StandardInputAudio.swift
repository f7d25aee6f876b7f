import AudioGraph
import AudioGraphCore
import Foundation

/// `run --source -`: WAV audio piped to standard input (from ffmpeg, sox, arecord) feeds the
/// graph's input, a stream-source of the pipe's format, until the pipe ends.
enum StandardInputAudio {
    /// Whether a `--source` argument names standard input (`-` or `NODE=-`).
    static func isStandardInput(_ argument: String) -> Bool { argument == "-" || argument.hasSuffix("=-") }

    /// The pipe's header read and checked, or nil when no `--source` names standard input.
    static func open(for sources: [String]) throws -> WAVStreamReader? {
        let named = sources.filter(isStandardInput)
        guard !named.isEmpty else { return nil }
        guard named.count == 1 else { throw UsageError("--source -: standard input is one stream; it can feed one input") }
        guard isatty(STDIN_FILENO) == 0 else {
            throw UsageError("--source -: standard input is a terminal; pipe WAV audio in "
                             + "(`ffmpeg -i talk.m4a -f wav - | audiograph run transcribe --source -`)")
        }
        return try WAVStreamReader(fd: STDIN_FILENO, name: "standard input")
    }

    /// Starts the thread that pushes the pipe's audio into the graph's stream-source, and
    /// ends its audio at the pipe's end (or the first read error, said on stderr). It stops
    /// reading once the run has ended (a command graph after its command).
    static func feed(_ reader: WAVStreamReader, into engine: AudioEngine, graph: ValidatedGraph, output: OutputQueue) {
        guard let id = graph.nodes.first(where: { $0.descriptor.type == "stream-source" })?.id,
              let input = engine.node(id) as? StreamSource else { return }
        let box = UncheckedSendable((reader, output))
        let thread = Thread {
            let (reader, output) = box.value
            do {
                while true {
                    let samples = try reader.next()
                    if samples.isEmpty || !samples.withUnsafeBufferPointer({ input.append(interleaved: $0) }) { break }
                }
            } catch {
                output.write("audiograph: \(error)\n", to: STDERR_FILENO)
            }
            input.endAudio()
        }
        thread.name = "audiograph.stdin"
        thread.start()
    }
}
