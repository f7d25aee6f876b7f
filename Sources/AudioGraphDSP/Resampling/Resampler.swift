import AudioGraphCore

/// `resampler`: converts the sample rate with a band-limited polyphase filter.
///
/// Any ratio between 8 and 384 kHz, any channel count, streaming. Output sample n is at
/// input time n / rate_out (the filter delay is compensated), a file of N frames gives
/// round(N · out / in) frames, and the output does not depend on input block sizes.
/// Filter tables are designed in `prepare`, never on the audio path.
///
/// Two methods, chosen by `method`: the direct polyphase filter (one stage, output with
/// every input block: live input) and soxr's two-stage design: an FFT low-pass that also
/// changes the rate by a whole factor (down-sampling: only the kept samples are computed;
/// up-sampling: the input is transformed at its own rate), then, for other down-sampling
/// ratios, a short polyphase filter: 2-4x the throughput, output in bursts of a few thousand
/// frames (file input). `auto` picks by the graph.
public final class Resampler: AudioNode {
    public static let descriptor = NodeDescriptor(
        type: "resampler",
        summary: "Converts the sample rate (Kaiser-windowed sinc: direct polyphase, or FFT low-pass + short polyphase; delay-compensated).",
        role: .processor,
        parameters: [
            ParameterSpec("rate", .integer(8000...384_000), required: true, unit: "Hz", help: "output sample rate"),
            ParameterSpec("quality", .choice(ResamplerQuality.allCases.map(\.rawValue)), default: "high",
                          help: ResamplerQuality.summary),
            ParameterSpec("method", .choice(Method.allCases.map(\.rawValue)), default: "auto",
                          help: "polyphase: one filter, output with every block (lowest latency); fft: an FFT low-pass "
                              + "that changes the rate by a whole factor itself, then for other down-sampling ratios a short "
                              + "filter (up-sampling by other ratios stays polyphase; faster, output in bursts); auto: fft "
                              + "for file input below very-high, polyphase for live input"),
        ],
        make: { p throws(GraphError) in
            Resampler(rate: p.integer("rate"), quality: p.choice("quality"), method: p.choice("method"), nodeId: p.nodeId)
        })

    /// How the conversion is computed (same response either way, within float rounding).
    public enum Method: String, CaseIterable, Sendable {
        case auto, polyphase, fft
    }

    let rate: Int
    let quality: ResamplerQuality
    let method: Method
    let nodeId: String
    private var inputRate = 0
    private var channels: [ChannelResampler] = []
    /// The direct filter's shape; its coefficients are designed in `prepare`, if it is used.
    private var direct: PolyphaseFilter.Shape?
    private var twoStage: TwoStageResampler.Design?
    /// The method in use once prepared (for benchmarks and tests).
    public private(set) var methodInUse: Method = .polyphase

    public init(rate: Int, quality: ResamplerQuality = .high, method: Method = .auto, nodeId: String = "resampler") {
        self.rate = rate
        self.quality = quality
        self.method = method
        self.nodeId = nodeId
    }

    public func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] {
        let r = inputs[0].sampleRate
        guard r == r.rounded(), (8000...384_000).contains(Int(r)) else {
            throw GraphError(.formatMismatch, "input rate \(r) Hz is not a whole number in 8000...384000", node: nodeId)
        }
        inputRate = Int(r)
        direct = PolyphaseFilter.Shape(inputRate: inputRate, outputRate: rate, quality: quality)
        twoStage = method == .polyphase || (method == .auto && quality == .veryHigh) ? nil
            : TwoStageResampler.design(inputRate: inputRate, outputRate: rate, quality: quality)
        return [StreamFormat(sampleRate: Double(rate), channelCount: inputs[0].channelCount)]
    }

    public func maxOutputFrames(forInputFrames frames: Int) -> Int {
        guard let direct, inputRate != rate else { return frames }
        let most = PolyphaseResampler.maxOutput(filter: direct, inputFrames: frames)
        guard let twoStage else { return most }
        // Live or not is known only in prepare: room for either method.
        return max(most, twoStage.maxOutput(inputFrames: frames))
    }

    public func prepare(_ context: PrepareContext) throws(EngineError) {
        guard let direct, inputRate != rate else { return }
        let count = context.inputFormats[0].channelCount
        if let twoStage, method == .fft || !context.isLive {
            // One low-pass (its FFT buffers) per channel, from the one design and its filters.
            let filters = TwoStageResampler.Filters(twoStage)
            channels = (0..<count).compactMap { _ in
                TwoStageResampler(twoStage, filters: filters, maxInputFrames: context.maxFrames)
            }
            if channels.count == count {
                methodInUse = .fft
                return
            }
        }
        methodInUse = .polyphase
        let filter = PolyphaseFilter(direct)
        channels = (0..<count).map { _ in
            PolyphaseResampler(filter: filter, maxInputFrames: context.maxFrames, precise: quality == .veryHigh)
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
    public var tapsPerOutput: Int { direct?.taps ?? 0 }
}
