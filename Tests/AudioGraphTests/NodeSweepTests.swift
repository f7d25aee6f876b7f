import AudioGraph
import AudioGraphCore
import AudioGraphTestSupport
import Foundation
import Testing

/// Every built-in node type through the synchronous harness, fed the same audio in blocks of
/// odd sizes, with empty blocks between, to the end of the stream: the output, its markers and
/// the events must not depend on how the audio was cut, and each type keeps its promises
/// about lengths, markers and end of stream.
@Suite struct NodeSweepTests {
    /// How a type is set up for the sweep.
    struct Case: CustomTestStringConvertible, Sendable {
        var type: String
        var params: [String: ParameterValue] = [:]
        var inputs: [StreamFormat] = [Self.mono16k]
        /// Output frames per input frame (nil: not a fixed ratio, or no output).
        var ratio: Double? = 1
        var testDescription: String { type }

        static let mono16k = StreamFormat(sampleRate: 16000, channelCount: 1)
    }

    /// Every built-in type but the PulseAudio ones, which need a server (PulseIntegrationTests
    /// run them against a real one).
    static let cases: [Case] = [
        Case(type: "gain", params: ["db": -6]),
        Case(type: "mixer", params: ["channels": 2], inputs: [Case.mono16k, Case.mono16k]),
        Case(type: "level-meter", params: ["interval": 0.05]),
        Case(type: "resampler", params: ["rate": 44100], ratio: 44100.0 / 16000),
        Case(type: "vad"),
        Case(type: "end-of-speech", params: ["no-speech-timeout": 0]),
        Case(type: "null-sink", ratio: nil),
        Case(type: "wav-sink", ratio: nil),
        Case(type: "test-signal", params: ["rate": 16000, "duration": 0.7], inputs: [], ratio: nil),
        Case(type: "file-source", inputs: [], ratio: nil),
        Case(type: "speech-synth", params: ["text": "ten"], inputs: [], ratio: nil),
        Case(type: "echo-canceller", inputs: [Case.mono16k, Case.mono16k]),
    ]

    /// The PulseAudio nodes need a server; the recognizer needs speech (`recognizerBlockCuts`);
    /// a stream-source needs a program pushing audio from another thread (StreamSourceTests);
    /// a remote-recognizer and a remote-synth need a speech server (RemoteRecognizerTests; the
    /// remote-synth is a speech-synth with another voice, swept as speech-synth).
    static let excluded: Set<String> = ["pulse-source", "pulse-sink", "recognizer", "stream-source", "remote-recognizer", "remote-synth"]

    /// Block sizes: the reference cut, then odd sizes with empty blocks among them.
    static let cuts: [[Int]] = [[1024], [1, 7, 0, 333, 1000, 0, 5, 64]]

    /// 1.2 s at 16 kHz: quiet noise, then 0.6 s of a vowel-like harmonic sound, then quiet.
    static let signal: [Float] = {
        var x: UInt32 = 9
        return (0..<19200).map { i in
            x = x &* 1_664_525 &+ 1_013_904_223
            let noise = Float(Int32(bitPattern: x)) / Float(Int32.max) * 0.001
            let t = Float(i) / 16000
            guard (0.3..<0.9).contains(t) else { return noise }
            let voice = (1...8).reduce(Float(0)) { $0 + sin(2 * .pi * 140 * Float($1) * t) / Float($1) }
            return noise + 0.2 * voice
        }
    }()

    static let markers = [StreamMarker(.speechStart, t: 0.3, decided: 0.4), StreamMarker(.speechEnd, t: 0.9, decided: 1.1)]

    /// What one run gave.
    struct Run: Equatable {
        var output: [[[Float]]]
        var markers: [[StreamMarker]]
        var events: [EngineEvent]
        var pushed: Int
    }

    static func run(_ c: Case, cut: [Int], dir: URL) throws -> Run {
        var params = c.params
        if c.type == "wav-sink" { params["path"] = .string(dir.appendingPathComponent("out-\(cut.count).wav").path) }
        if c.type == "file-source" { params["path"] = .string(dir.appendingPathComponent("in.wav").path) }
        let h = try NodeHarness(c.type, params, inputs: c.inputs, maxFrames: 1024,
                                upstreamMarkers: c.type == "end-of-speech" ? [.speechStart, .speechEnd] : [],
                                registry: .builtin)
        var pushed = 0, k = 0
        if c.inputs.isEmpty {
            var blocks = 0
            while !h.isEnded && blocks < 10_000 {
                let status = h.pull(frames: cut[k % cut.count])
                if case .failed(let code) = status { Issue.record("\(c.type) failed (\(code)) at block \(blocks)") }
                k += 1
                blocks += 1
            }
            #expect(h.isEnded, "\(c.type) never ended")
        } else {
            var markersLeft = markers
            while pushed < signal.count {
                let n = min(cut[k % cut.count], signal.count - pushed)
                k += 1
                let block = Array(signal[pushed..<pushed + n])
                let end = Double(pushed + n) / 16000
                // A marker rides on the block in which its decision time falls.
                let due = markersLeft.filter { $0.decided < end }
                markersLeft.removeAll { $0.decided < end }
                let buses = c.inputs.map { f in Array(repeating: block, count: f.channelCount) }
                // The vad makes the speech markers; it is not given any.
                let status = h.push(buses: buses, markers: c.inputs.map { _ in c.type == "vad" ? [] : due })
                if case .failed(let code) = status { Issue.record("\(c.type) failed (\(code)) at frame \(pushed)") }
                pushed += n
            }
            if case .failed(let code) = h.endInput() { Issue.record("\(c.type) failed (\(code)) at the end") }
            #expect(h.isEnded, "\(c.type) did not end after its input")
        }
        try h.finish()
        let buses = h.outputFormats.indices
        return Run(output: buses.map { h.takeOutput(bus: $0) }, markers: buses.map { h.takeMarkers(bus: $0) },
                   events: h.takeEvents(), pushed: pushed)
    }

    @Test func everyBuiltInTypeIsSweptOrExcludedWithAReason() {
        let swept = Set(Self.cases.map(\.type)).union(Self.excluded)
        #expect(Set(NodeRegistry.builtin.descriptors.map(\.type)) == swept)
    }

    @Test(arguments: cases)
    func blockCutsDoNotChangeWhatComesOut(_ c: Case) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        if c.type == "file-source" {
            let writer = try NodeHarness("wav-sink", ["path": .string(dir.appendingPathComponent("in.wav").path), "format": "f32"],
                                         inputs: [Case.mono16k], maxFrames: Self.signal.count, registry: .builtin)
            writer.push([Self.signal])
            writer.endInput()
            try writer.finish()
        }
        let reference = try Self.run(c, cut: Self.cuts[0], dir: dir)
        let odd = try Self.run(c, cut: Self.cuts[1], dir: dir)
        // Compared apart from the expectation, which would print every sample.
        let sameOutput = odd.output == reference.output
        #expect(sameOutput, "\(c.type): output depends on the block cut: \(Self.difference(odd.output, reference.output))")
        #expect(odd.markers == reference.markers, "\(c.type): markers depend on the block cut")
        #expect(odd.events == reference.events, "\(c.type): events depend on the block cut")

        if let ratio = c.ratio {
            let frames = reference.output.first?.first?.count ?? -1
            #expect(abs(Double(frames) - Double(reference.pushed) * ratio) <= ratio + 1,
                    "\(c.type): \(frames) frames out for \(reference.pushed) in")
        }
        if c.type == "wav-sink" {
            for n in [1, Self.cuts[1].count] {
                let written = try WAVFile.monoSamples(path: dir.appendingPathComponent("out-\(n).wav").path).samples
                #expect(written.count == Self.signal.count)
                let error = zip(written, Self.signal).map { abs($0 - $1) }.max() ?? 1
                #expect(error <= 1.0 / 32768, "s16 round trip off by \(error)")
            }
        }
        if c.type == "file-source" { #expect(reference.output.first?.first == Self.signal) }
    }

    /// Where two outputs first differ, briefly (the arrays are long).
    static func difference(_ a: [[[Float]]], _ b: [[[Float]]]) -> String {
        for (bus, (x, y)) in zip(a, b).enumerated() {
            for (c, (p, q)) in zip(x, y).enumerated() {
                if p.count != q.count { return "bus \(bus) channel \(c): \(p.count) vs \(q.count) frames" }
                if let i = p.indices.first(where: { p[$0] != q[$0] }) { return "bus \(bus) channel \(c) frame \(i): \(p[i]) vs \(q[i])" }
            }
        }
        return "bus or channel counts differ"
    }

    /// Processors that make no markers of their own carry their input's along, at the same times.
    @Test(arguments: ["gain", "level-meter", "resampler"])
    func markersPassThrough(_ type: String) throws {
        let c = Self.cases.first { $0.type == type }!
        let r = try Self.run(c, cut: Self.cuts[1], dir: FileManager.default.temporaryDirectory)
        #expect(r.markers.first == Self.markers)
    }

    /// The recognizer, the real decoder and model, on flite speech: the same words at the
    /// same times however the audio is cut.
    @Test(.flite)
    func recognizerBlockCuts() throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let speech = try WAVFile.monoSamples(path: wav.path).samples
        func finals(_ cut: [Int]) throws -> [RecognitionResult] {
            let h = try NodeHarness("recognizer", ["final": "live", "partials": 0], inputs: [Case.mono16k], maxFrames: 1024,
                                    registry: .builtin)
            var at = 0, k = 0
            while at < speech.count {
                let n = min(cut[k % cut.count], speech.count - at)
                h.push([Array(speech[at..<at + n])])
                at += n
                k += 1
            }
            h.endInput()
            try h.finish()
            return h.takeEvents().compactMap { if case .final(_, let r) = $0 { return r } else { return nil } }
        }
        let reference = try finals(Self.cuts[0]), odd = try finals(Self.cuts[1])
        #expect(reference.map(\.text) == ["go forward ten meters"])
        #expect(odd.map(\.text) == reference.map(\.text))
        #expect(odd.flatMap(\.words).map(\.start) == reference.flatMap(\.words).map(\.start))
    }

    /// The harness refuses what a graph file would: an unknown type, an unknown or bad
    /// parameter, a missing required one, each named.
    @Test func badNodesAreRefusedWithTheirName() {
        func refusal(_ type: String, _ params: [String: ParameterValue]) -> GraphError? {
            do { _ = try NodeHarness(type, params, inputs: [Case.mono16k], registry: .builtin); return nil } catch {
                return error as? GraphError
            }
        }
        #expect(refusal("no-such-node", [:])?.code == .unknownNodeType)
        #expect(refusal("gain", ["volume": 1])?.parameter == "volume")
        #expect(refusal("gain", ["db": 500])?.code == .badParameterValue)
        #expect(refusal("resampler", [:])?.code == .missingParameter)
        #expect(refusal("resampler", [:])?.parameter == "rate")
    }
}
