import AudioGraphDSP
import Foundation

/// Measured FFT plans for a graph, kept for every later run on this machine (what
/// `audiograph tune` does).
///
/// The engine's FFTs (the resampler's low-pass on file input, the vad's frames) are planned
/// by FFTW's estimate unless a measured plan for the same transform is kept in the cache
/// folder (`fftw-wisdom`). ``tune(_:patient:)`` prepares `graph` with measured plans, which
/// takes up to a second per transform size (`patient`: up to half a minute, a little faster
/// again), and adds them to that file. The transform sizes follow the graph's rates, so tune
/// with the input rate the graph will see (a `--source` file at that rate).
public enum FFTTuning {
    /// What a tuning did.
    public struct Outcome: Sendable {
        /// Plans measured (each kind of transform and size once).
        public let measured: Int
        /// The file the plans are kept in.
        public let path: String
    }

    /// Prepares `graph` (without running it) with measured plans and keeps them; plans made
    /// afterwards in this process are estimated again. Throws what preparing the graph throws
    /// (a file or device that cannot be opened), or `EngineError` when the cache folder cannot
    /// be written.
    public static func tune(_ graph: ValidatedGraph, patient: Bool = false) throws -> Outcome {
        let previous = FFTPlans.newPlans
        FFTPlans.newPlans = patient ? .patient : .measure
        defer { FFTPlans.newPlans = previous }
        let before = FFTPlans.measuredCount
        let engine = AudioEngine(graph: graph)
        try engine.prepare()
        let path = try FFTPlans.save()
        return Outcome(measured: FFTPlans.measuredCount - before, path: path)
    }
}
