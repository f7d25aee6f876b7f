import AudioGraph
import AudioGraphCore
import AudioGraphSpeech
import Foundation
import Synchronization

/// `audiograph batch GRAPH INPUT...`: one graph over many inputs, a model load per worker.
enum BatchCommand: Command {
    static let name = "batch"
    static let abstract = "Transcribe many files: parallel workers, subtitles, resumable, shardable."
    static let help = """
        USAGE: audiograph batch GRAPH.json INPUT... [--output DIR] [--jobs N] [--shard I/N] [--set NODE.PARAM=VALUE]... [--list]

        Runs GRAPH over every INPUT (a sound file, or a folder searched for sound files) as
        `audiograph run GRAPH --source INPUT --json` would, with --jobs workers that each
        load the model once, and writes for each input, under DIR:
          NAME.jsonl  the JSON events, as `run --json` prints them
          NAME.srt    SubRip subtitles from the final results' word times
          NAME.vtt    WebVTT subtitles, the same cues
        NAME is the input's file name without extension, or for a folder's files their path
        inside the folder. Inputs whose three files exist are skipped, so after Ctrl-C or a
        crash the same command resumes (a result file is renamed into place whole; an input
        interrupted while it ran is done again). An input that fails is reported and the
        others go on (exit status 1 at the end). A graph with a wav-sink is refused (its one
        file would be written for every input) unless the sink writes to a device (/dev/null).
        Each finished input gets a line on stdout; failures, the summary and (when stderr is a
        terminal) one progress bar for the whole job, below the lines, go to stderr.

        OPTIONS:
          --output DIR            Where the results go (default: the current folder; made if
                                  missing, and checked before any input runs).
          --jobs N                Inputs transcribed at once (default: the number of cores).
          --shard I/N             Take shard I of N (0 <= I < N) of the sorted inputs: every N-th
                                  from the I-th. N machines running the same command with shards
                                  0/N ... N-1/N share the inputs between them without overlap.
          --set NODE.PARAM=VALUE  Override a node parameter (repeatable).
          --list                  Print the inputs this shard takes and where their results go; run nothing.
          -h, --help              Show this help.

        EXAMPLE (Slurm, 4 machines):
          sbatch --array=0-3 --wrap 'audiograph batch graphs/transcribe.json podcasts/ --output out --shard $SLURM_ARRAY_TASK_ID/4'
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var args = Arguments(arguments)
        let list = args.flag("--list")
        let sets = try args.options("--set")
        let output = try args.options("--output").last ?? "."
        let jobsText = try args.options("--jobs").last, shardText = try args.options("--shard").last
        let graph = try args.positional("graph file")
        let arguments = args.positionals()
        try args.finish(name)
        var jobs = ProcessInfo.processInfo.activeProcessorCount
        if let jobsText {
            guard let j = Int(jobsText), (1...256).contains(j) else {
                throw UsageError("--jobs: expected a whole number of workers in 1...256, got \"\(jobsText)\"")
            }
            jobs = j
        }
        let shard: (index: Int, count: Int) = try shardText.map { t throws(UsageError) in try BatchInputs.parseShard(t) } ?? (0, 1)
        let inputs = try BatchInputs(arguments, outputFolder: output).shard(shard.index, of: shard.count)
        try BatchOutput.prepare(output, create: !list)
        // The graph and its settings are checked once, before any input runs.
        let checked = try GraphLoading.load(graph, sources: inputs.first.map { [$0.path] } ?? [], sets: sets)
        // A sink's file is the graph's, the same for every input: each would replace the last
        // (with several workers, two would write it at once). A device (/dev/null) takes them all.
        for n in checked.nodes where n.descriptor.type == "wav-sink" {
            guard let path = n.parameters.string("path"), case .special = PathKind(path) else {
                throw UsageError("\(graph): node \"\(n.id)\" (wav-sink) would write \(n.parameters.string("path") ?? "its file") "
                                 + "for every input, each replacing the last; batch keeps each input's results in --output "
                                 + "(make it a null-sink, or --set \(n.id).path=/dev/null)")
            }
        }
        if list {
            for i in inputs { print("\(VisibleText.escaped(i.path))\t\(VisibleText.escaped(i.output)).jsonl" + (BatchInputs.isComplete(i) ? "\t(done)" : "")) }
            return 0
        }

        let todo = inputs.filter { !BatchInputs.isComplete($0) }
        let progress = BatchProgress(total: inputs.count, skipped: inputs.count - todo.count)
        let signals = SignalHandler()
        let interrupted = Atomic<Bool>(false)
        signals.attach(stop: { interrupted.store(true, ordering: .relaxed) },
                       cancel: { interrupted.store(true, ordering: .relaxed) })
        SpeechModel.keepsLoadedModels = true
        SpeechModel.loadedModelsLimit = max(SpeechModel.loadedModelsLimit, jobs)  // one per worker
        defer { SpeechModel.keepsLoadedModels = false }
        let transcriber = BatchTranscriber(graph: graph, sets: sets, options: .init())
        let next = Atomic<Int>(0)
        let transcribed = Atomic<Int>(0), failures = Atomic<Int>(0)
        let started = monotonicSeconds()
        let workers = min(jobs, max(1, todo.count))
        let done = DispatchGroup()
        for w in 0..<workers {
            done.enter()
            let thread = Thread {
                defer { done.leave() }
                while !interrupted.load(ordering: .relaxed) {
                    let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard i < todo.count else { break }
                    let input = todo[i]
                    let outcome = transcriber.run(input, progress: { progress.update(worker: w, position: $0, duration: $1) },
                                                  interrupted: { interrupted.load(ordering: .relaxed) })
                    switch outcome {
                    case .done(let audio, let utterances):
                        transcribed.add(1, ordering: .relaxed)
                        progress.finishedInput(worker: w, line: "\(input.path): \(String(format: "%.1f", audio)) s, \(utterances) utterance\(utterances == 1 ? "" : "s") -> \(input.output).jsonl",
                                               failed: false, audio: audio)
                    case .failed(let why):
                        failures.add(1, ordering: .relaxed)
                        // The error names the file when it is about the file.
                        let line = why.contains(input.path) ? why : "\(input.path): \(why)"
                        progress.finishedInput(worker: w, line: "audiograph: " + line, failed: true, audio: 0)
                    case .interrupted:
                        break  // done again by the next run
                    }
                }
            }
            thread.name = "audiograph.batch.\(w)"
            thread.start()
        }
        while done.wait(timeout: .now() + 0.1) == .timedOut { progress.draw() }
        progress.finish()
        signals.cancel()

        let wall = monotonicSeconds() - started, audio = progress.audioSeconds
        let failed = failures.load(ordering: .relaxed)
        let finished = transcribed.load(ordering: .relaxed), left = todo.count - finished - failed
        var summary = "audiograph: batch: \(inputs.count) input\(inputs.count == 1 ? "" : "s")"
        summary += ": \(finished) transcribed"
        if inputs.count > todo.count { summary += ", \(inputs.count - todo.count) already done" }
        if failed > 0 { summary += ", \(failed) failed" }
        if interrupted.load(ordering: .relaxed) && left > 0 { summary += ", \(left) left (interrupted: run the same command again to resume)" }
        summary += String(format: "; %.1f s of audio in %.1f s", audio, wall)
        if wall > 0 && audio > 0 { summary += " (" + RealTimeSpeed.text(audio: audio, wall: wall) + ", " + "\(workers) worker\(workers == 1 ? "" : "s"))" }
        StandardStreams.writeError(summary + "\n")
        return failed > 0 || (interrupted.load(ordering: .relaxed) && left > 0) ? 1 : 0
    }
}
