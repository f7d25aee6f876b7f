import Foundation

/// `level-meter`: passes audio through and emits `level` events (RMS and peak in dBFS,
/// the loudest channel) once per interval of stream time.
package final class LevelMeter: AudioNode {
    /// The `level-meter` node type: its parameters, buses and factory.
    package static let descriptor = NodeDescriptor(
        type: "level-meter",
        summary: "Passes audio through; emits RMS/peak dBFS level events every interval.",
        role: .processor,
        parameters: [ParameterSpec("interval", .number(0.005...3600), default: 0.1, unit: "s",
                                   help: "stream time between level events")],
        make: { p throws(GraphError) in LevelMeter(interval: p.number("interval")) })

    let interval: Double
    private var windowFrames = 1
    private var count = 0
    private var sumSquares: [Double] = []
    private var peak: Float = 0
    private var rate = 48000.0
    private var framesSeen: Int64 = 0

    /// A meter reporting every `interval` seconds.
    package init(interval: Double) { self.interval = interval }

    package func prepare(_ context: PrepareContext) throws(EngineError) {
        rate = context.inputFormats[0].sampleRate
        windowFrames = max(1, Int((interval * rate).rounded()))
        sumSquares = Array(repeating: 0, count: context.inputFormats[0].channelCount)
    }

    package func process(_ io: inout ProcessIO) -> FlowStatus {
        let input = io.inputs[0], output = io.outputs[0]
        let n = input.frameLength
        output.copyFrames(from: input, count: n)
        output.frameLength = n
        var i = 0
        while i < n {
            let m = min(n - i, windowFrames - count)
            for c in 0..<input.channelCount {
                let p = input.channel(c) + i
                var s: Double = 0
                var pk = peak
                for k in 0..<m {
                    let v = p[k]
                    s += Double(v * v)
                    pk = max(pk, abs(v))
                }
                sumSquares[c] += s
                peak = pk
            }
            count += m
            i += m
            framesSeen += Int64(m)
            if count == windowFrames { emit(&io) }
        }
        if io.inputsEnded && count > 0 { emit(&io) }
        return .ok
    }

    private func emit(_ io: inout ProcessIO) {
        var loudest: Double = 0
        for c in sumSquares.indices {
            loudest = max(loudest, sumSquares[c] / Double(count))
            sumSquares[c] = 0
        }
        io.emit(NodeEvent(.level, t: Double(framesSeen) / rate,
                          values: (Self.decibels(loudest.squareRoot()), Self.decibels(Double(peak)), 0, 0)))
        count = 0
        peak = 0
    }

    /// dBFS of a linear amplitude, floored at -200.
    static func decibels(_ x: Double) -> Double { x > 1e-10 ? 20 * log10(x) : -200 }

    package func reset() {
        count = 0
        peak = 0
        framesSeen = 0
        for c in sumSquares.indices { sumSquares[c] = 0 }
    }
}
