import AudioGraphCore

/// Opening a `speech-synth`'s voice before the run: flite's, or the one its node type gives
/// (`remote-synth`: a server's), which fixes the node's format, and its earcons at that rate.
extension SpeechSynth {
    /// Opens the voice and makes the earcons (control thread, before the run).
    public func open() throws(EngineError) {
        guard worker == nil else { return }
        let voice: any SpeechVoice
        if let openVoice { voice = try openVoice() } else { voice = try openFlite() }
        format = StreamFormat(sampleRate: Double(voice.sampleRate), channelCount: 1)
        for (e, spec) in earconSpecs {
            do throws(EngineError) {
                earcons[e] = try e.samples(spec, rate: voice.sampleRate)
            } catch {
                var error = error
                error.parameter = e.parameter
                throw error
            }
        }
        worker = SpeechWorker(voice: voice, capacity: queueCapacity)
    }

    private func openFlite() throws(EngineError) -> any SpeechVoice {
        guard let voice = FliteVoice(voiceName) else {
            if let failure = Flite.failure {
                throw EngineError(.model, "flite (libflite.so.1) cannot be loaded: \(failure)", parameter: "voice",
                                  suggestion: "install Debian's flite")
            }
            throw EngineError(.model, "flite has no voice \"\(voiceName)\" (voices: \(FliteVoice.names.joined(separator: ", ")), "
                              + "each Debian's libflite_cmu_us_NAME.so.1)",
                              parameter: "voice", suggestion: "install Debian's flite")
        }
        return FliteSpeech(voice: voice, rate: rate)
    }
}
