import AudioGraphCore
import CFFTW
import Foundation

/// How FFTW plans the engine's transforms, and the measured plans it keeps.
///
/// Plans are estimated by default (`FFTW_ESTIMATE`: nothing is timed at set-up). Measured
/// plans run the same transforms faster (the long ones of the resampler's low-pass take
/// 0.6x the time), but measuring takes up to a second a size, so it is done once:
/// `audiograph tune` (or ``newPlans`` set to measure, then ``save()``) prepares a graph
/// with measured plans and keeps them as FFTW wisdom in the cache folder. Every process
/// imports that file, and the system's (`/etc/fftw/wisdomf`, which Debian's `fftwf-wisdom`
/// writes), before its first plan; FFTW then uses a kept plan wherever one matches the
/// transform, and estimates the rest. A file that cannot be read is ignored, like any cache.
///
/// A measured plan computes the same transform in another order: results differ by float
/// rounding (a few parts in 10^7), not more.
public enum FFTPlans {
    /// How hard FFTW looks for a fast plan when none is kept.
    public enum Rigor: Sendable {
        /// Picked by FFTW's heuristics at once (the default).
        case estimate
        /// Timed among FFTW's usual candidates (`FFTW_MEASURE`: up to a second per size).
        case measure
        /// Timed among more candidates (`FFTW_PATIENT`: up to half a minute per size).
        case patient
    }

    // Guarded by `RealFFT.planner`, like FFTW's planner itself.
    nonisolated(unsafe) private static var rigor = Rigor.estimate
    nonisolated(unsafe) private static var imported = false
    nonisolated(unsafe) private static var measured = Set<String>()

    /// The kept plans' file: `fftw-wisdom` in the cache folder (``CacheFolder``).
    public static var path: String? { CacheFolder.path.map { $0 + "/fftw-wisdom" } }

    /// How the plans this process makes from now on are found, unless one is kept
    /// (``Rigor/estimate`` at start); ``save()`` keeps measured ones for later processes.
    /// Process-wide, like FFTW's planner: an engine prepared on another thread meanwhile
    /// measures its plans too.
    public static var newPlans: Rigor {
        get { RealFFT.planner.withLock { rigor } }
        set { RealFFT.planner.withLock { rigor = newValue } }
    }

    /// Transforms planned with ``Rigor/measure`` or ``Rigor/patient`` so far in this
    /// process (each kind and size once).
    public static var measuredCount: Int { RealFFT.planner.withLock { measured.count } }

    /// Planner flags for the next plan, of `transform` (its kind and size), importing the
    /// kept plans first the first time. Called under `RealFFT.planner`.
    static func flags(_ transform: String) -> UInt32 {
        importKeptPlans()
        switch rigor {
        case .estimate: return UInt32(FFTW_ESTIMATE)
        case .measure: measured.insert(transform); return UInt32(FFTW_MEASURE)
        case .patient: measured.insert(transform); return UInt32(FFTW_PATIENT)
        }
    }

    /// The system's kept plans for single precision (what `fftwf_import_system_wisdom` reads).
    static let systemPath = "/etc/fftw/wisdomf"

    /// Imports the system's and the cache folder's plans, once, each only from a file: FFTW
    /// opens the name it is given and reads to the end, so a pipe there held every process at
    /// its first transform, for ever. Under `RealFFT.planner`.
    private static func importKeptPlans() {
        guard !imported else { return }
        imported = true
        for file in [systemPath] + (path.map { [$0] } ?? []) where PathKind(file) == .regular {
            _ = fftwf_import_wisdom_from_filename(file)
        }
    }

    /// Writes every plan this process knows (those it imported and those it measured) to
    /// ``path``, replacing the file whole (written under another name, then renamed).
    /// Returns the path. Throws when there is no cache folder or it cannot be written.
    @discardableResult
    public static func save() throws(EngineError) -> String {
        guard let path, let folder = CacheFolder.path else {
            throw EngineError(.io, "no cache folder to keep FFT plans in (set AUDIOGRAPH_CACHE or HOME)")
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw EngineError(.io, "\(folder): cannot make the cache folder: \(error.localizedDescription)")
        }
        let temporary = path + ".\(getpid()).tmp"
        let written = RealFFT.planner.withLock {
            importKeptPlans()  // a process that planned nothing still keeps what the file held
            return fftwf_export_wisdom_to_filename(temporary) != 0
        }
        guard written, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw EngineError(.io, "\(path): cannot write the FFT plans: \(reason)")
        }
        return path
    }
}
