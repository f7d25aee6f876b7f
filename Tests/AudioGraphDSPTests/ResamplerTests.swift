import AudioGraph
import AudioGraphCore
import AudioGraphTestSupport
import Foundation
import Testing

@testable import AudioGraphDSP

@Suite struct ResamplerTests {
    static let pairs: [(Int, Int)] = [(44100, 16000), (48000, 16000), (22050, 16000), (8000, 16000), (16000, 48000),
                                      (44100, 48000)]

    /// Both methods, each held to the same contract.
    static let methods = ["polyphase", "fft"]

    func resample(_ x: [Float], from: Int, to: Int, quality: String = "high", method: String = "polyphase",
                  chunks: [Int] = [1024]) async throws -> [Float] {
        try await OfflineRender.run("resampler", ["rate": .number(Double(to)), "quality": .string(quality),
                                                  "method": .string(method)],
                                    input: [x], rate: Double(from), chunks: chunks, registry: .builtin).output[0]
    }

    @Test(arguments: pairs.indices, methods)
    func lengthIsRoundedRatio(pair: Int, method: String) async throws {
        let (from, to) = Self.pairs[pair]
        for n in [1, 999, 12345, 40000] {
            let y = try await resample([Float](repeating: 0.1, count: n), from: from, to: to, method: method)
            #expect(y.count == Int((Double(n) * Double(to) / Double(from)).rounded()), "\(from)->\(to), \(n) frames")
        }
    }

    @Test(arguments: pairs.indices, methods)
    func impulseComesOutAtItsTime(pair: Int, method: String) async throws {
        let (from, to) = Self.pairs[pair]
        // An impulse at 0.1 s (a whole number of frames at both rates for these pairs).
        var x = [Float](repeating: 0, count: from / 5)
        let at = from / 10
        x[at] = 1
        let y = try await resample(x, from: from, to: to, method: method)
        let peak = y.indices.max { abs(y[$0]) < abs(y[$1]) }!
        #expect(peak == to / 10, "\(from)->\(to): peak at \(peak), expected \(to / 10)")
    }

    @Test(arguments: methods)
    func outputDoesNotDependOnBlockSizes(method: String) async throws {
        let x = Signals.sine(440, seconds: 0.5, rate: 44100).enumerated().map { $0.element + Float($0.offset % 7) * 1e-3 }
        for (from, to) in [(44100, 16000), (48000, 16000)] {
            let a = try await resample(x, from: from, to: to, method: method, chunks: [1024])
            let b = try await resample(x, from: from, to: to, method: method, chunks: [1, 7, 333, 4096, 2, 1000])
            #expect(a == b, "\(method) \(from)->\(to): bit-identical whatever the input blocks")
        }
    }

    /// The two methods compute the same response: they differ by float rounding only (down-
    /// sampling, and up-sampling by a whole factor, where `fft` stuffs zeros before its low-pass).
    @Test func methodsAgree() async throws {
        for (from, to) in [(48000, 16000), (44100, 16000), (22050, 16000), (8000, 16000), (16000, 48000)] {
            // Tones in the passband (below 0.9 x the lower Nyquist), where both are flat to 0.00001 dB.
            let high = 0.76 * Double(min(from, to)) / 2 + 33
            let x = zip(Signals.sine(997, seconds: 0.5, rate: Double(from)), Signals.sine(high, seconds: 0.5, rate: Double(from)))
                .map { 0.5 * ($0 + $1) }
            let a = try await resample(x, from: from, to: to, method: "polyphase")
            let b = try await resample(x, from: from, to: to, method: "fft")
            #expect(a.count == b.count)
            // Away from the abrupt start and end (broadband clicks, where the transition bands differ).
            let diff = zip(a, b).map { Double($0 - $1) }[a.count / 4..<3 * a.count / 4]
            let rms = (diff.map { $0 * $0 }.reduce(0, +) / Double(max(1, diff.count))).squareRoot()
            // Same passband: float rounding and the presets' ripple only.
            #expect(Signals.db(rms / 0.35) < -110, "\(from)->\(to): difference \(Signals.db(rms / 0.35)) dB")
        }
    }

    /// `auto` uses the two-stage FFT design for file input and the direct filter when live.
    @Test func autoPicksByInput() throws {
        for (live, expected) in [(false, Resampler.Method.fft), (true, .polyphase)] {
            let r = Resampler(rate: 16000, quality: .high, method: .auto)
            let f = StreamFormat(sampleRate: 48000, channelCount: 1)
            let out = try r.outputFormats(for: [f])
            try r.prepare(PrepareContext(inputFormats: [f], outputFormats: out, maxFrames: 1024, isLive: live))
            #expect(r.methodInUse == expected)
        }
        let veryHigh = Resampler(rate: 16000, quality: .veryHigh, method: .auto)
        let f = StreamFormat(sampleRate: 48000, channelCount: 1)
        try veryHigh.prepare(PrepareContext(inputFormats: [f], outputFormats: try veryHigh.outputFormats(for: [f]),
                                            maxFrames: 1024, isLive: false))
        #expect(veryHigh.methodInUse == .polyphase, "very-high stays direct (float32 FFT floor)")
    }

    /// Passband flatness and stopband rejection of each preset, measured on tones.
    @Test(arguments: ResamplerQuality.allCases, methods)
    func presetMeetsItsFigures(quality: ResamplerQuality, method: String) async throws {
        for (from, to) in [(48000, 16000), (44100, 16000), (8000, 16000)] {
            let edge = Double(min(from, to)) / 2
            let seconds = 0.4
            // Passband: gain of tones up to 0.9 x edge within the ripple bound (+ margin for the estimate).
            var gains: [Double] = []
            for f in [100.0, 1000, 0.5 * edge, 0.9 * edge] {
                let y = try await resample(Signals.sine(f, seconds: seconds, rate: Double(from)), from: from, to: to,
                                           quality: quality.rawValue, method: method)
                let mid = y[y.count / 4..<3 * y.count / 4]
                gains.append(Signals.db(Signals.amplitude(of: f, in: mid, rate: Double(to)) / 0.5))
            }
            let ripple = gains.max()! - gains.min()!
            #expect(ripple <= max(quality.ripple, 0.0005) + 0.0005, "\(quality) \(method) \(from)->\(to): ripple \(ripple) dB")
            // Stopband: (down) tones above the edge must vanish; (up) images above the edge.
            // Upsampling tones are multiples of 4 Hz: whole periods in the 0.25 s window.
            let probes = from > to ? [1.0 * edge, 1.3 * edge, 0.95 * Double(from) / 2] : [1200.0, 3200]
            let floor = 140.0  // float32 arithmetic
            for f in probes {
                let y = try await resample(Signals.sine(f, seconds: seconds, rate: Double(from)), from: from, to: to,
                                           quality: quality.rawValue, method: method)
                let mid = y[y.count / 4..<y.count / 4 + to / 4]
                let unwanted = from > to ? Signals.rms(mid) : residualRMS(mid, tone: f, rate: Double(to))
                let rejection = -Signals.db(unwanted / (0.5 / 2.0.squareRoot()))
                #expect(rejection >= min(quality.attenuation, floor) - 6,
                        "\(quality) \(method) \(from)->\(to) at \(Int(f)) Hz: \(rejection) dB")
            }
        }
    }

    /// RMS of what is left after removing the tone itself (exact: the slice holds whole
    /// periods of `frequency`), i.e. the images an upsampler let through.
    func residualRMS(_ x: ArraySlice<Float>, tone frequency: Double, rate: Double) -> Double {
        var c = 0.0, s = 0.0
        for (k, v) in x.enumerated() {
            let w = 2 * .pi * frequency * Double(k) / rate
            c += Double(v) * cos(w)
            s += Double(v) * sin(w)
        }
        let n = Double(x.count)
        var sum = 0.0
        for (k, v) in x.enumerated() {
            let w = 2 * .pi * frequency * Double(k) / rate
            let r = Double(v) - 2 * (c * cos(w) + s * sin(w)) / n
            sum += r * r
        }
        return (sum / n).squareRoot()
    }
}

@Suite struct ConversionInsertionTests {
    func graph(convert: Bool) throws -> ValidatedGraph {
        var g = GraphDescription(name: "t", file: "t.json")
        g.addNode("a", type: "test-signal", ["rate": 44100, "channels": 2])
        g.addNode("b", type: "test-signal", ["rate": 16000])
        g.addNode("m", type: "mixer")
        g.addNode("o", type: "null-sink")
        g.connect("b", to: "m")
        g.connect("a", to: "m", convert: convert)
        g.connect("m", to: "o")
        return try GraphValidator.validate(g, registry: .builtin).get()
    }

    @Test func mismatchedRateGetsAResampler() throws {
        let n = try NegotiatedGraph(try graph(convert: true))
        #expect(n.insertions.map(\.type) == ["resampler"])
        #expect(n.insertions.first?.conversion == "44100 Hz stereo -> 16000 Hz stereo")
        let dot = GraphDot.render(n.graph, formats: n.formats)
        #expect(dot.contains("\"a\" -> \"a->m.rate\" [label=\"44100 Hz stereo\"]"))
    }

    @Test func convertFalseMakesMismatchAnError() throws {
        #expect {
            _ = try NegotiatedGraph(try graph(convert: false))
        } throws: { e in
            let g = e as? GraphError
            return g?.code == .formatMismatch && g?.description.contains("\"convert\": false") == true
                && g?.description.contains("node \"m\"") == true
        }
    }

    @Test func convertedGraphRunsToTheRightLength() async throws {
        let engine = AudioEngine(graph: try graph(convert: true))
        #expect(try await engine.run() == .endOfInput)
        #expect(engine.format(ofNode: "a->m.rate") == StreamFormat(sampleRate: 16000, channelCount: 2))
    }
}
