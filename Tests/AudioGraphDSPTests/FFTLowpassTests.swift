import Foundation
import Testing

@testable import AudioGraphDSP

/// The FFT low-pass computes blocks in pairs and gives their output out over the following
/// calls: no call gives more than its input's share and a hop (the buffers after it are
/// sized by that), the rest follows the input's end over calls with no input, and the
/// output is the same however the input is cut.
@Suite struct FFTLowpassTests {
    static func noise(_ n: Int) -> [Float] {
        var x: UInt32 = 1
        return (0..<n).map { _ in
            x = x &* 1_664_525 &+ 1_013_904_223
            return Float(Int32(bitPattern: x)) / Float(Int32.max) * 0.5
        }
    }

    /// Runs `input` through in `chunk`-frame calls, then empty calls until nothing comes:
    /// the output, and the most any one call gave beyond its bound (0 or less when within).
    static func run(_ design: FFTLowpass.Design, _ input: [Float], chunk: Int) throws -> (out: [Float], excess: Int, drains: Int) {
        let filter = try #require(FFTLowpass(design, spectrum: FFTLowpass.spectrum(design)))
        var out: [Float] = [], excess = Int.min, drains = 0
        var buffer = [Float](repeating: 0, count: design.maxOutput(inputFrames: chunk) + 1)
        var at = 0
        while true {
            let n = min(chunk, input.count - at)
            let ending = at + n == input.count
            let given = input.withUnsafeBufferPointer { x in
                buffer.withUnsafeMutableBufferPointer { filter.process(x.baseAddress! + at, count: n, ending: ending, output: $0.baseAddress!) }
            }
            excess = max(excess, given - design.maxOutput(inputFrames: n))
            out += buffer[0..<given]
            at += n
            if ending && n == 0 {
                if given == 0 { break }
                drains += 1
            }
        }
        #expect(filter.isFinished)
        return (out, excess, drains)
    }

    @Test(arguments: [(48000, 1, 3), (44100, 1, 2), (48000, 3, 1)])
    func outputComesInItsShareAndAHop(rate: Int, up: Int, down: Int) throws {
        let edge = Double(rate / max(up, down)) / 2
        let design = FFTLowpass.Design(rate: rate, passband: 0.9 * edge, stopband: edge, attenuation: 130, up: up, down: down)
        let input = Self.noise(5 * design.inputHop + 777)
        let whole = try Self.run(design, input, chunk: input.count)
        #expect(whole.out.count == design.outputFrames(inputFrames: input.count))
        var drains = 0
        for chunk in [1024, 333, 2 * design.inputHop + 1] {
            let r = try Self.run(design, input, chunk: chunk)
            #expect(r.excess <= 0, "\(rate) \(up)/\(down), \(chunk)-frame calls: \(r.excess) frames over the bound")
            #expect(r.out == whole.out, "\(rate) \(up)/\(down), \(chunk)-frame calls: different output")
            drains = max(drains, r.drains)
        }
        // Small calls leave the end's output for calls after the input's end.
        #expect(drains > 0)
    }
}
