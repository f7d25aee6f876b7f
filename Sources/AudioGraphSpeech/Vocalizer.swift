import Foundation
import Synchronization

/// Text to speech outside a graph (a server's `synthesize`, SpeechKit's `SKVocalizer`): flite,
/// the same voices and rate as the `speech-synth` node. Any thread. flite itself runs one
/// synthesis at a time (its global state): text is spoken a sentence at a time
/// (``SpokenPieces``), so concurrent callers take turns sentence by sentence, and a long text
/// holds one sentence's audio at a time.
public enum Vocalizer {
    /// The voice names flite offers here (Debian's flite: rms, slt, awb, kal16, kal).
    public static var voices: [String] { FliteVoice.names }

    /// Why speech cannot be made on this machine (flite missing), or nil.
    public static var unavailable: String? { Flite.failure }

    private static let loaded = Mutex<[String: FliteVoice]>([:])

    private static func voice(_ name: String) -> FliteVoice? {
        loaded.withLock { cache in
            if let v = cache[name] { return v }
            let v = FliteVoice(name)
            cache[name] = v
            return v
        }
    }

    /// The sample rate `voice` speaks at; nil for an unknown voice or when flite is missing.
    public static func sampleRate(of voice: String) -> Int? { self.voice(voice)?.sampleRate }

    /// Speaks `text` with `voice` at `rate` (1: the voice's pace) a sentence at a time: `each`
    /// gets each sentence's samples (in -1...1, at ``sampleRate(of:)``) as soon as they are
    /// made, and returns whether to go on. False for an unknown voice or when flite is missing
    /// (nothing is spoken); a text with nothing to say calls `each` never.
    public static func speak(_ text: String, voice: String = "rms", rate: Double = 1, each: ([Float]) -> Bool) -> Bool {
        guard let v = self.voice(voice) else { return false }
        for piece in SpokenPieces.of(FliteVoice.speakable(text)) {
            guard each(v.synthesize(piece, rate: min(4, max(0.25, rate)))) else { break }
        }
        return true
    }

    /// Speaks `text` with `voice` at `rate` (1: the voice's pace): samples in -1...1 and their
    /// rate; nil for an unknown voice or when flite is missing. Empty samples when there is
    /// nothing to say.
    public static func speak(_ text: String, voice: String = "rms", rate: Double = 1) -> (samples: [Float], sampleRate: Int)? {
        guard let sampleRate = sampleRate(of: voice) else { return nil }
        var samples: [Float] = []
        _ = speak(text, voice: voice, rate: rate) { samples += $0; return true }
        return (samples, sampleRate)
    }
}
