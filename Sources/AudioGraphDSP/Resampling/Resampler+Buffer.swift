extension Resampler {
    /// Converts a whole mono signal from `inputRate` to `outputRate` with the streaming
    /// polyphase resampler (same filter and quality as the node), for sounds loaded once (a
    /// speech-synth's earcons). Not real-time: allocates.
    public static func convert(_ samples: [Float], from inputRate: Int, to outputRate: Int,
                               quality: ResamplerQuality = .high) -> [Float] {
        guard inputRate != outputRate, !samples.isEmpty else { return samples }
        let filter = PolyphaseFilter(inputRate: inputRate, outputRate: outputRate, quality: quality)
        let r = PolyphaseResampler(filter: filter, maxInputFrames: samples.count, precise: false)
        var out = [Float](repeating: 0, count: PolyphaseResampler.maxOutput(filter: filter.shape, inputFrames: samples.count) + 64)
        let n = samples.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { o in
                r.process(s.baseAddress!, count: s.count, ending: true, output: o.baseAddress!, maxOut: o.count)
            }
        }
        return Array(out[..<n])
    }
}
