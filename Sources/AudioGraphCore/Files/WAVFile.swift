/// Whole WAV files read at once, for short sounds (earcons).
public enum WAVFile {
    /// A whole WAV file mixed down to mono, with its sample rate. Not real-time.
    /// Non-finite samples become silence.
    public static func monoSamples(path: String) throws(EngineError) -> (samples: [Float], rate: Int) {
        let reader = try WAVFileReader(path: path)
        let format = reader.header.format
        let frames = reader.header.frameCount
        guard frames > 0 else { return ([], Int(format.sampleRate)) }
        let buffer = AudioBuffer(format: format, frameCapacity: frames)
        reader.read(into: buffer, start: 0, count: frames)
        var mono = [Float](repeating: 0, count: frames)
        let scale = 1 / Float(format.channelCount)
        for c in 0..<format.channelCount {
            let x = buffer.channel(c)
            for i in 0..<frames where x[i].isFinite { mono[i] += x[i] * scale }
        }
        return (mono, Int(format.sampleRate))
    }
}
