import Foundation

/// `test-signal`: a sine, white or pink noise, or silence, for tests and calibration.
/// Noise is generated from a fixed seed, so every run is identical.
package final class TestSignalSource: AudioNode {
    /// The `test-signal` node type: its parameters, buses and factory.
    package static let descriptor = NodeDescriptor(
        type: "test-signal",
        summary: "Generates a sine, white or pink noise, or silence (deterministic).",
        role: .source,
        parameters: [
            ParameterSpec("signal", .choice(["sine", "white", "pink", "silence"]), default: "sine", help: "waveform"),
            ParameterSpec("frequency", .number(0.1...192_000), default: 1000, unit: "Hz", help: "sine frequency"),
            ParameterSpec("level", .number(-200...0), default: -20, unit: "dBFS", help: "peak level of the sine, RMS level of noise"),
            ParameterSpec("rate", .integer(8000...384_000), default: 48000, unit: "Hz", help: "sample rate"),
            ParameterSpec("channels", .integer(1...8), default: 1, help: "channel count (same signal on each)"),
            ParameterSpec("duration", .number(0...86_400), default: 1, unit: "s", help: "length; 0 runs until stopped"),
            ParameterSpec("seed", .integer(1...Int(Int32.max)), default: 1, help: "noise generator seed"),
        ],
        make: { p throws(GraphError) in
            let rate = Double(p.integer("rate"))
            if p.string("signal") == "sine" && p.number("frequency") >= rate / 2 {
                throw p.error("frequency", "expected below half the sample rate (\(rate / 2) Hz), got \(p.number("frequency"))")
            }
            return TestSignalSource(p)
        })

    let signal: String
    let frequency: Double
    let amplitude: Double
    let format: StreamFormat
    let totalFrames: Int64?
    let seed: UInt32
    private var position: Int64 = 0
    private var rng: UInt32 = 1
    private var pink = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)

    init(_ p: ResolvedParameters) {
        signal = p.text("signal")
        frequency = p.number("frequency")
        amplitude = pow10(p.number("level") / 20)
        format = StreamFormat(sampleRate: Double(p.integer("rate")), channelCount: p.integer("channels"))
        let d = p.number("duration")
        totalFrames = d > 0 ? Int64((d * format.sampleRate).rounded()) : nil
        seed = UInt32(p.integer("seed"))
        rng = seed
    }

    package func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] { [format] }
    package var durationFrames: Int64? { totalFrames }

    package func process(_ io: inout ProcessIO) -> FlowStatus {
        let out = io.outputs[0]
        var n = io.requestedFrames
        if let total = totalFrames { n = Int(min(Int64(n), total - position)) }
        let first = out.channel(0)
        switch signal {
        case "sine":
            let w = 2 * Double.pi * frequency / format.sampleRate
            for i in 0..<n { first[i] = Float(amplitude * sin(w * Double(position + Int64(i)))) }
        case "white":
            // Uniform in -1...1 has RMS 1/sqrt(3).
            let scale = amplitude * 3.0.squareRoot()
            for i in 0..<n { first[i] = Float(scale * nextUniform()) }
        case "pink":
            // Paul Kellet's refined filter on white noise; ~ -3 dB/octave.
            for i in 0..<n {
                let w = nextUniform()
                pink.0 = 0.99886 * pink.0 + w * 0.0555179
                pink.1 = 0.99332 * pink.1 + w * 0.0750759
                pink.2 = 0.96900 * pink.2 + w * 0.1538520
                pink.3 = 0.86650 * pink.3 + w * 0.3104856
                pink.4 = 0.55000 * pink.4 + w * 0.5329522
                pink.5 = -0.7616 * pink.5 - w * 0.0168980
                let v = pink.0 + pink.1 + pink.2 + pink.3 + pink.4 + pink.5 + pink.6 + w * 0.5362
                pink.6 = w * 0.115926
                first[i] = Float(v * amplitude * 0.55)
            }
        default:
            first.update(repeating: 0, count: n)
        }
        for c in 1..<max(format.channelCount, 1) { out.channel(c).update(from: first, count: n) }
        out.frameLength = n
        position += Int64(n)
        if let total = totalFrames, position >= total { return .endOfStream }
        return .ok
    }

    @inline(__always)
    private func nextUniform() -> Double {
        rng ^= rng << 13
        rng ^= rng >> 17
        rng ^= rng << 5
        return Double(rng) / Double(UInt32.max) * 2 - 1
    }

    package func reset() {
        position = 0
        rng = seed
        pink = (0, 0, 0, 0, 0, 0, 0)
    }
}
