import AudioGraphSpeech

/// Speech for a client, frame by frame: each sentence as ``Vocalizer`` makes it, cut into
/// frames, and no more than the server's longest session of audio (`--max-session-seconds`).
/// Both protocols' speech output (Wyoming's `synthesize`, the app protocol's `speak`).
enum SpokenFrames {
    /// Why the speech ended.
    enum End { case spoken, tooLong, stopped }

    /// Speaks `text` with `voice` at `rate` (the voice's pace), handing `send` each frame of
    /// `frame` samples (the last of a sentence may be shorter) and the sample it starts at;
    /// `send` returns false to stop. At most `seconds` of audio at `sampleRate` (the voice's).
    /// The samples sent and why it ended.
    static func speak(_ text: String, voice: String, rate: Double = 1, sampleRate: Int, frame: Int, seconds: Double,
                      send: (ArraySlice<Float>, _ at: Int) -> Bool) -> (samples: Int, end: End) {
        let most = Int(seconds * Double(sampleRate))
        var at = 0, end = End.spoken
        _ = Vocalizer.speak(text, voice: voice, rate: rate) { samples in
            var i = 0
            while i < samples.count {
                guard at < most else { end = .tooLong; return false }
                let n = min(frame, samples.count - i, most - at)
                guard send(samples[i..<(i + n)], at) else { end = .stopped; return false }
                i += n
                at += n
            }
            return true
        }
        return (at, end)
    }
}
