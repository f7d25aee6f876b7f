import AudioGraphCore

/// `resampler`: converts the sample rate with a band-limited polyphase filter.
///
/// Any ratio between 8 and 384 kHz, any channel count, streaming. Output sample n is at
/// input time n / rate_out (the filter delay is compensated), a file of N frames gives
/// round(N · out / in) frames, and the output does not depend on input block sizes.
/// Filter tables are designed in `prepare`, never on the audio path.
public final class Resampler: AudioNode {
    public static let descriptor = NodeDescriptor(
        type: "resampler",
        summary: "Converts the sample rate (polyphase Kaiser-windowed sinc, delay-compensated).",
        role: .processor,
        parameters: [
            ParameterSpec("rate", .integer(8000...384_000), required: true, unit: "Hz", help: "output sample rate"),
            ParameterSpec("quality", .choice(ResamplerQuality.allCases.map(\.rawValue)), default: "high",
                          help: ResamplerQuality.summary),
        ],
        make: { p throws(GraphError) in
            Resampler(rate: p.integer("rate"), quality: ResamplerQuality(rawValue: p.string("quality") ?? "high") ?? .high,
                      nodeId: p.nodeId)
        })

    let rate: Int
    let quality: ResamplerQuality
    let nodeId: String
    private var inputRate = 0
    private var channels: [PolyphaseResampler] = []
    private var filter: PolyphaseFilter?

    public init(rate: Int, quality: ResamplerQuality = .high, nodeId: String = "resampler") {
        self.rate = rate
        self.quality = quality
        self.nodeId = nodeId
    }

    public func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] {
        let r = inputs[0].sampleRate
        guard r == r.rounded(), (8000...384_000).contains(Int(r)) else {
            throw GraphError(.formatMismatch, "input rate \(r) Hz is not a whole number in 8000...384000", node: nodeId)
        }
        inputRate = Int(r)
        filter = PolyphaseFilter(inputRate: inputRate, outputRate: rate, quality: quality)
        return [StreamFormat(sampleRate: Double(rate), channelCount: inputs[0].channelCount)]
    }

    public func maxOutputFrames(forInputFrames frames: Int) -> Int {
        guard let filter, inputRate != rate else { return frames }
        return PolyphaseResampler.maxOutput(filter: filter, inputFrames: frames)
    }

    public func prepare(_ context: PrepareContext) throws(EngineError) {
        guard let filter, inputRate != rate else { return }
        channels = (0..<context.inputFormats[0].channelCount).map { _ in
            PolyphaseResampler(filter: filter, maxInputFrames: context.maxFrames)
        }
    }

    public func process(_ io: inout ProcessIO) -> FlowStatus {
        let input = io.inputs[0], output = io.outputs[0]
        if inputRate == rate {  // same rate: a copy, bit-exact
            output.copyFrames(from: input, count: input.frameLength)
            output.frameLength = input.frameLength
            return .ok
        }
        var n = 0
        for (c, r) in channels.enumerated() {
            n = r.process(input.channel(c), count: input.frameLength, ending: io.inputsEnded,
                          output: output.channel(c), maxOut: output.frameCapacity)
        }
        output.frameLength = n
        return .ok
    }

    public func reset() { for c in channels { c.reset() } }

    /// Filter taps per output sample (for benchmarks and docs).
    public var tapsPerOutput: Int { filter?.taps ?? 0 }
}
