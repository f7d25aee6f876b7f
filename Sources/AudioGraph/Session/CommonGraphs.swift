import AudioGraphCore

/// The graphs of the common cases, built in code (the same as the bundled graph files):
/// transcribe a file, dictate from a microphone, recognise one command of a grammar. Each
/// is an ordinary ``GraphDescription``: add nodes or change parameters before making a
/// ``RecognitionSession`` from it.
///
/// ```swift
/// let session = try RecognitionSession(graph: .transcription(of: "talk.wav"))
/// ```
extension GraphDescription {
    /// A sound file (WAV, FLAC, Ogg, MP3, …) → 16 kHz → vad → end of speech (1.2 s pauses
    /// split) → recognizer. Each utterance is decoded whole (`final: utterance`): the fewest
    /// errors, but no partial results; use ``dictation(device:)`` for those.
    public static func transcription(of path: String) -> GraphDescription {
        var g = GraphDescription(name: "transcribe")
        g.addNode("src", type: "file-source", ["path": .string(path)])
        g.addSpeechPath(after: "src", endOfSpeech: ["mode": "long", "no-speech-timeout": 0],
                        recognizer: ["partials": 0, "final": "utterance"])
        return g
    }

    /// The microphone (`device`, or the default PulseAudio source) → 16 kHz → vad → end of
    /// speech (long) → recognizer, continuous, with partial results as they change and each
    /// final as soon as its utterance ends (`final: live`). Runs until stopped.
    public static func dictation(device: String? = nil) -> GraphDescription {
        var g = GraphDescription(name: "dictation")
        var mic: [String: ParameterValue] = ["latency": 0.02]
        if let device { mic["device"] = .string(device) }
        g.addNode("mic", type: "pulse-source", mic)
        g.addSpeechPath(after: "mic", endOfSpeech: ["mode": "long", "no-speech-timeout": 0],
                        recognizer: ["partials": 0.25, "alternatives": 3, "final": "live"])
        return g
    }

    /// One utterance against the JSGF grammar at `grammar`: the microphone (or the file at
    /// `source`) → 16 kHz → vad → end of speech (grammar-aware) → recognizer. The session
    /// ends after the first utterance, or with reason `no-speech` after `noSpeechTimeout` s.
    public static func command(grammar: String, source: String? = nil, noSpeechTimeout: Double = 5) -> GraphDescription {
        var g = GraphDescription(name: "command")
        if let source {
            g.addNode("mic", type: "file-source", ["path": .string(source)])
        } else {
            g.addNode("mic", type: "pulse-source")
        }
        g.addSpeechPath(after: "mic", endOfSpeech: ["mode": "short", "complete": 0.25, "incomplete": 1.2,
                                                   "no-speech-timeout": .number(noSpeechTimeout)],
                        recognizer: ["grammar": .string(grammar), "continuous": false])
        return g
    }

    /// resampler → vad → end-of-speech → recognizer after node `input`.
    private mutating func addSpeechPath(after input: String, endOfSpeech: [String: ParameterValue],
                                        recognizer: [String: ParameterValue]) {
        addNode("rs", type: "resampler", ["rate": 16000])
        addNode("vad", type: "vad")
        addNode("eos", type: "end-of-speech", endOfSpeech)
        addNode("asr", type: "recognizer", recognizer)
        connect(input, to: "rs")
        connect("rs", to: "vad")
        connect("vad", to: "eos")
        connect("eos", to: "asr")
    }
}

extension RecognitionSession {
    /// Transcribes a sound file in one call (like `SFSpeechURLRecognitionRequest`): runs
    /// ``GraphDescription/transcription(of:)`` on it as fast as it can go and returns the
    /// final results in order. Throws if the file cannot be read or the model cannot load.
    ///
    /// ```swift
    /// for r in try await RecognitionSession.transcribe(file: "talk.wav") {
    ///     print(r.start, r.text, r.confidence)
    /// }
    /// ```
    public static func transcribe(file path: String) async throws -> [RecognitionResult] {
        let session = try RecognitionSession(graph: .transcription(of: path))
        let events = session.events
        try session.start()
        var finals: [RecognitionResult] = []
        var failure: EngineError?
        for await e in events {
            switch e {
            case .final(_, let r): finals.append(r)
            case .error(let error): failure = failure ?? error
            default: break
            }
        }
        if let failure { throw failure }
        return finals
    }
}
