/// Whole WAV files read at once, for short sounds (earcons).
public enum WAVFile {
    /// A whole WAV file mixed down to mono, with its sample rate. Not real-time. PCM and float
    /// through the WAV reader; other codecs (IMA and MS ADPCM, GSM 6.10) and big-endian RIFX
    /// through libsndfile, as a `file-source` reads them. Non-finite samples become silence.
    public static func monoSamples(path: String) throws(EngineError) -> (samples: [Float], rate: Int) {
        let reader: WAVFileReader
        do {
            reader = try WAVFileReader(path: path)
        } catch {
            guard WAVParseError.isCodecNeeded(error) || FileSource.isNamedWAV(path) && !FileSource.isWAV(path),
                  let file = try? SndFile(path: path) else { throw error }
            return monoSamples(file)
        }
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

    /// The whole of a file libsndfile decodes, mixed down to mono.
    private static func monoSamples(_ file: SndFile) -> (samples: [Float], rate: Int) {
        let channels = file.format.channelCount, scale = 1 / Float(channels)
        var mono: [Float] = []
        var block = [Float](repeating: 0, count: 4096 * channels)
        while true {
            let n = block.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, count: 4096) }
            guard n > 0 else { break }
            for i in 0..<n {
                var x: Float = 0
                for c in 0..<channels where block[i * channels + c].isFinite { x += block[i * channels + c] }
                mono.append(x * scale)
            }
        }
        return (mono, Int(file.format.sampleRate))
    }
}
