import Foundation

/// The folder audiograph keeps what it works out once and reuses (the cut dictionary, the
/// record of checked model files, measured FFT plans): `$AUDIOGRAPH_CACHE`, else
/// `$XDG_CACHE_HOME/audiograph`, else `~/.cache/audiograph`. Everything in it can be
/// deleted; it is made again when needed.
package enum CacheFolder {
    /// The folder's path; nil when the environment names none (no `HOME`).
    package static var path: String? {
        let env = ProcessInfo.processInfo.environment
        if let f = env["AUDIOGRAPH_CACHE"], !f.isEmpty { return f }
        if let x = env["XDG_CACHE_HOME"], !x.isEmpty { return x + "/audiograph" }
        if let h = env["HOME"], !h.isEmpty { return h + "/.cache/audiograph" }
        return nil
    }
}
