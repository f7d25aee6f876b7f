/// `mixer`: sums any number of inputs into one output, converting channel counts.
///
/// Channel conversion (each input to the output count `channels`):
/// - N → 1: the mean of the N channels; with `polarity` auto, a channel that is the first's
///   negative (some laptops' stereo microphones) is added with its sign turned, and a warning
///   says so (``ChannelPolarity``).
/// - 1 → M: the mono signal on every channel.
/// - N → M otherwise: input channel i goes to output channel i mod M, each output the
///   mean of what lands on it (so stereo → 4 ch puts L, R on 0, 1 and leaves 2, 3 silent).
///
/// Inputs must share one sample rate. Each input has a small FIFO so branches that
/// deliver different block sizes (through a resampler, say) still line up sample for
/// sample; an input that has ended counts as silence.
package final class Mixer: AudioNode {
    /// The `mixer` node type: its parameters, buses and factory.
    package static let descriptor = NodeDescriptor(
        type: "mixer",
        summary: "Sums its inputs (connect to \"id\" for the next free bus) and up/down-mixes channels.",
        role: .processor,
        parameters: [ParameterSpec("channels", .integer(1...8),
                                   help: "output channel count (default: that of input 0); N -> 1: mean of the N; "
                                       + "1 -> M: copied to all M; N -> M: input i to output i mod M, averaged"),
                     ParameterSpec("polarity", .choice(["auto", "keep"]), default: "auto",
                                   help: "N -> 1: auto: a channel that is the first's negative (some laptops' stereo microphones, "
                                       + "whose mean is near silence) is mixed with its sign turned, with a warning; keep: the plain mean")],
        inputs: .variadic(max: 16),
        make: { p throws(GraphError) in
            Mixer(channels: p["channels"] == nil ? nil : p.integer("channels"), nodeId: p.nodeId,
                  followsPolarity: p.text("polarity") == "auto")
        })

    let requestedChannels: Int?
    let nodeId: String
    let followsPolarity: Bool
    private var fifos: [AudioBuffer] = []
    /// Per input, for a down-mix to mono with `polarity` auto.
    private var polarities: [ChannelPolarity?] = []
    private var outChannels = 1
    private var rate = 1.0
    static let warningPolarity: Int32 = 1

    /// A mixer to `channels` channels (nil: the widest input's).
    package init(channels: Int?, nodeId: String = "mixer", followsPolarity: Bool = true) {
        requestedChannels = channels
        self.nodeId = nodeId
        self.followsPolarity = followsPolarity
    }

    /// Every input at the rate of input 0 (channel counts may differ).
    package func acceptedFormat(forInput bus: Int, offered: StreamFormat, all: [StreamFormat]) -> StreamFormat {
        StreamFormat(sampleRate: all[0].sampleRate, channelCount: offered.channelCount)
    }

    package func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] {
        let rate = inputs[0].sampleRate
        if let other = inputs.firstIndex(where: { $0.sampleRate != rate }) {
            throw GraphError(.formatMismatch,
                             "input \(other) is \(inputs[other]) but input 0 is \(inputs[0]); mixer inputs must share one rate",
                             node: nodeId, suggestion: "put a resampler before the mixer")
        }
        return [StreamFormat(sampleRate: rate, channelCount: requestedChannels ?? inputs[0].channelCount)]
    }

    package func maxOutputFrames(forInputFrames frames: Int) -> Int { frames * 4 }

    package func prepare(_ context: PrepareContext) throws(EngineError) {
        outChannels = context.outputFormats[0].channelCount
        let f = context.outputFormats[0]
        fifos = context.inputFormats.map { _ in AudioBuffer(format: f, frameCapacity: context.maxFrames * 4) }
        rate = f.sampleRate
        polarities = context.inputFormats.map { input in
            followsPolarity && outChannels == 1 && input.channelCount > 1
                ? ChannelPolarity(channels: input.channelCount, window: Int(f.sampleRate / 10)) : nil
        }
    }

    package func process(_ io: inout ProcessIO) -> FlowStatus {
        // Append each input to its FIFO in the output channel layout.
        for (k, input) in io.inputs.enumerated() {
            let fifo = fifos[k]
            let n = min(input.frameLength, fifo.frameCapacity - fifo.frameLength)
            if n > 0, let polarity = polarities[k] {
                polarity.mix(input, into: fifo.channel(0) + fifo.frameLength, count: n) { change in
                    io.emit(NodeEvent(.warning, t: Double(change.frame) / rate,
                                      values: (Double(change.channel), Double(change.correlation), change.inverted ? 1 : 0, Double(k)),
                                      code: Self.warningPolarity))
                }
            } else if n > 0 {
                mapChannels(input, into: fifo, at: fifo.frameLength, count: n)
            }
            fifo.frameLength += n
        }
        // Output what every still-running input can supply.
        var n = Int.max
        var longest = 0
        for (k, fifo) in fifos.enumerated() {
            longest = max(longest, fifo.frameLength)
            if !io.inputEnded[k] { n = min(n, fifo.frameLength) }
        }
        if n == Int.max { n = longest }  // every input ended: flush
        let out = io.outputs[0]
        n = min(n, out.frameCapacity)
        out.silence(count: n)
        for fifo in fifos {
            let m = min(n, fifo.frameLength)
            for c in 0..<outChannels {
                let src = fifo.channel(c), dst = out.channel(c)
                for i in 0..<m { dst[i] += src[i] }
                (src).update(from: src + m, count: fifo.frameLength - m)
            }
            fifo.frameLength -= m
        }
        out.frameLength = n
        return .ok
    }

    @inline(__always)
    private func mapChannels(_ input: AudioBuffer, into fifo: AudioBuffer, at offset: Int, count n: Int) {
        let inCh = input.channelCount
        if inCh == outChannels {
            fifo.copyFrames(from: input, to: offset, count: n)
            return
        }
        for o in 0..<outChannels {
            let dst = fifo.channel(o) + offset
            var sources = 0
            var i = o
            if inCh == 1 { i = 0 }
            dst.update(repeating: 0, count: n)
            while i < inCh {
                let src = input.channel(i)
                for f in 0..<n { dst[f] += src[f] }
                sources += 1
                if inCh == 1 { break }
                i += outChannels
            }
            if sources > 1 {
                let scale = 1 / Float(sources)
                for f in 0..<n { dst[f] *= scale }
            }
        }
    }

    package func reset() {
        for f in fifos { f.frameLength = 0 }
        for p in polarities { p?.reset() }
    }

    package func publicEvent(_ raw: NodeEvent, nodeId: String) -> EngineEvent? {
        guard raw.kind == .warning && raw.code == Self.warningPolarity else { return raw.standardEvent(nodeId: nodeId) }
        let channel = Int(raw.values.0) + 1, input = polarities.count > 1 ? " of input \(Int(raw.values.3))" : ""
        let at = String(format: "%.2f s (correlation %.2f)", raw.t, raw.values.1)
        if raw.values.2 == 1 {
            return .warning(node: nodeId, message: "channel \(channel)\(input) is channel 1 inverted (a fault of some laptops' stereo "
                            + "microphones: their mean is near silence): mixed to mono with its sign turned from \(at)")
        }
        return .warning(node: nodeId, message: "channel \(channel)\(input) is in phase with channel 1 again: mixed as it is from \(at)")
    }
}
