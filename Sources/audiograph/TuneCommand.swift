import AudioGraph
import AudioGraphCore
import Foundation

/// `audiograph tune GRAPH`: measures the FFT plans a graph uses and keeps them.
enum TuneCommand: Command {
    static let name = "tune"
    static let abstract = "Measure the FFT plans a graph uses, once, for faster runs."
    static let help = """
        USAGE: audiograph tune GRAPH.json [--source [NODE=]FILE] [--set NODE.PARAM=VALUE] [--patient]

        Prepares the graph without running it, timing FFTW's candidate plans for each
        transform it uses (the resampler's low-pass on file input, the vad's frames), and
        keeps the fastest in the cache folder (fftw-wisdom in $AUDIOGRAPH_CACHE, else
        $XDG_CACHE_HOME/audiograph, else ~/.cache/audiograph). Every later run, of any
        graph, uses a kept plan where one fits: a 48 kHz stereo file converts to 16 kHz
        mono in about 0.9x the time. Transform sizes follow the rates, so give the
        input the graph will see (--source a file at that rate). Takes up to a second per
        transform. Results change only by float rounding. Deleting the file undoes it.

        OPTIONS:
        \(GraphLoading.editOptionsHelp)
          --patient               Time more candidates (up to half a minute per transform).
          -h, --help              Show this help.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var args = Arguments(arguments)
        let patient = args.flag("--patient")
        let (path, graph) = try GraphLoading.load(from: &args, command: name)
        let started = monotonicSeconds()
        let outcome = try FFTTuning.tune(graph, patient: patient)
        let seconds = monotonicSeconds() - started
        if outcome.measured == 0 {
            print("\(path): no FFT to tune in this graph (plans kept in \(outcome.path))")
        } else {
            print(String(format: "%@: measured %d FFT plans in %.1f s; kept in %@", path, outcome.measured, seconds, outcome.path))
        }
        return 0
    }
}
