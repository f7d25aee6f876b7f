import AudioGraphCore
import AudioGraphDSP
import AudioGraphPulse
import AudioGraphRemote
import AudioGraphSpeech

extension NodeRegistry {
    /// Every node type that ships with audiograph. A new node type is its file, one line
    /// here, and tests.
    public static let builtin: NodeRegistry = {
        var r = NodeRegistry.core
        r.register(PulseSource.descriptor)
        r.register(PulseSink.descriptor)
        r.register(Resampler.descriptor)
        r.register(VoiceActivityDetector.descriptor)
        r.register(EndOfSpeechDetector.descriptor)
        r.register(Recognizer.descriptor)
        r.register(SpeechSynth.descriptor)
        r.register(RemoteRecognizer.descriptor)
        r.register(RemoteSynth.descriptor)
        r.register(EchoCanceller.descriptor)
        r.converter = NodeRegistry.formatConverter
        r.implicitControls = { ImplicitControls.links($0) }
        return r
    }()

    /// Converts channels with a `mixer` and rates with a `resampler` (quality `high`),
    /// mixing down before resampling and up after, so the resampler runs on the fewest
    /// channels (GStreamer's audioconvert ! audioresample, AVAudioEngine's mixer).
    public static let formatConverter: ConverterFactory = { from, to in
        var steps: [ConversionStep] = []
        let mix = ConversionStep(descriptor: Mixer.descriptor, params: ["channels": .number(Double(to.channelCount))])
        if to.channelCount < from.channelCount { steps.append(mix) }
        if to.sampleRate != from.sampleRate {
            steps.append(ConversionStep(descriptor: Resampler.descriptor,
                                        params: ["rate": .number(to.sampleRate), "quality": "high"]))
        }
        if to.channelCount > from.channelCount { steps.append(mix) }
        return steps
    }
}
