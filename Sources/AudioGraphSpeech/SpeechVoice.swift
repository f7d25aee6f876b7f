import AudioGraphCore

/// What turns text into samples for a `speech-synth`, on its worker thread (never the render
/// thread): flite on this machine, or a speech server's voice (`remote-synth`).
public protocol SpeechVoice: Sendable {
    /// Samples per second of the speech it makes (fixed before the run: the node's format).
    var sampleRate: Int { get }
    /// `text` (printable ASCII, single spaces) as mono samples in -1...1 at ``sampleRate``;
    /// empty when there is nothing to say. Throws when the voice cannot speak any more (a
    /// server gone): the node's run ends with that error.
    func synthesize(_ text: String) throws(EngineError) -> [Float]
}

/// One of flite's voices at a speaking rate: `speech-synth`'s own.
struct FliteSpeech: SpeechVoice {
    let voice: FliteVoice
    let rate: Double
    var sampleRate: Int { voice.sampleRate }
    func synthesize(_ text: String) throws(EngineError) -> [Float] { voice.synthesize(text, rate: rate) }
}
