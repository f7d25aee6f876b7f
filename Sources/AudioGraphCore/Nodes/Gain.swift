import Foundation

/// `gain`: multiplies every sample by a gain given in decibels.
package final class Gain: AudioNode {
    /// The `gain` node type: its parameters, buses and factory.
    package static let descriptor = NodeDescriptor(
        type: "gain", summary: "Changes the level by a fixed gain in dB.",
        role: .processor,
        parameters: [ParameterSpec("db", .number(-120...60), default: 0, unit: "dB",
                                   help: "gain; negative attenuates, -120 is silence")],
        make: { p throws(GraphError) in Gain(db: p.number("db")) })

    /// Linear factor applied to every sample.
    package let factor: Float

    /// A gain of `db` decibels.
    package init(db: Double) {
        factor = db <= -120 ? 0 : Float(pow10(db / 20))
    }

    package func process(_ io: inout ProcessIO) -> FlowStatus {
        let input = io.inputs[0], output = io.outputs[0]
        let n = input.frameLength
        let g = factor
        for c in 0..<input.channelCount {
            let src = input.channel(c), dst = output.channel(c)
            for i in 0..<n { dst[i] = src[i] * g }
        }
        output.frameLength = n
        return .ok
    }
}

/// 10^x without Foundation.
func pow10(_ x: Double) -> Double { exp(x * 2.302585092994046) }
