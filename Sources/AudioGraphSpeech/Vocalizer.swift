import Foundation
import Synchronization

/// Text to speech outside a graph (a server's `synthesize`, SpeechKit's `SKVocalizer`): flite,
/// the same voices and rate as the `speech-synth` node. Any thread; flite itself runs one
/// synthesis at a time (its global state), so concurrent callers take turns.
public enum Vocalizer {
    /// The voice names flite offers here (Debian's flite: rms, slt, awb, kal16, kal).
    public static var voices: [String] { FliteVoice.names }

    /// Why speech cannot be made on this machine (flite missing), or nil.
    public static var unavailable: String? { Flite.failure }

    private static let loaded = Mutex<[String: FliteVoice]>([:])

    /// Speaks `text` with `voice` at `rate` (1: the voice's pace): samples in -1...1 and their
    /// rate; nil for an unknown voice or when flite is missing. Empty samples when there is
    /// nothing to say.
    public static func speak(_ text: String, voice: String = "rms", rate: Double = 1) -> (samples: [Float], sampleRate: Int)? {
        let v: FliteVoice? = loaded.withLock { cache in
            if let v = cache[voice] { return v }
            let v = FliteVoice(voice)
            cache[voice] = v
            return v
        }
        guard let v else { return nil }
        return (v.synthesize(FliteVoice.speakable(text), rate: min(4, max(0.25, rate))), v.sampleRate)
    }
}
