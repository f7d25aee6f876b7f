import AudioGraphCore
import AudioGraphTestSupport
import Foundation
import Testing

/// The vad on flite speech buried in steady noise. The likelihood ratio over the whole band,
/// which the vad used before its fitted model, found about half of the speech in these scenes
/// (`Sources/AudioGraphDSP/Speech/TUNING.md`).
@Suite struct NoisySpeechTests {
    static let rate = 16000.0
    static let hop = 160

    /// Speech frames (10 ms) of a clean utterance: within 40 dB of its loudest, with pauses
    /// under 0.3 s counted as speech (as the peer harness's truth does).
    static func speechFrames(_ x: [Float]) -> [Bool] {
        let n = x.count / hop
        let level = (0..<n).map { Signals.db(Signals.rms(x[($0 * hop)..<(($0 + 1) * hop)])) }
        let top = level.max() ?? 0
        let loud = (0..<n).filter { level[$0] > top - 40 }
        var frames = [Bool](repeating: false, count: n)
        for (a, b) in zip(loud, loud.dropFirst()) {
            frames[a] = true
            if b - a < 30 { for i in a...b { frames[i] = true } }
        }
        if let last = loud.last { frames[last] = true }
        return frames
    }

    /// White noise, or pink (Paul Kellet's economy filter, -3 dB per octave), unit RMS.
    static func noise(pink: Bool, count: Int, seed: UInt64) -> [Float] {
        var x = Signals.noise(rms: 1, seconds: Double(count) / rate, rate: rate, seed: seed)
        if pink {
            var b0: Float = 0, b1: Float = 0, b2: Float = 0
            for i in x.indices {
                b0 = 0.99765 * b0 + x[i] * 0.0990460
                b1 = 0.96300 * b1 + x[i] * 0.2965164
                b2 = 0.57000 * b2 + x[i] * 1.0526913
                x[i] = b0 + b1 + b2 + x[i] * 0.1848
            }
            let r = Float(Signals.rms(x[...]))
            for i in x.indices { x[i] /= r }
        }
        return x
    }

    /// White noise 3 dB above the speech, pink noise as loud as it: the mean share of the
    /// speech found over three noise recordings (one is as likely to hide a soft first word as
    /// not), and the false alarms.
    @Test(.flite, arguments: [(false, 3.0), (true, 0.0)])
    func speechInSteadyNoiseIsFound(pink: Bool, noiseAbove: Double) async throws {
        let wav = try #require(Flite.speech("find me a thai restaurant that is open late tonight"))
        let read = try WAVFile.monoSamples(path: wav.path)
        try #require(read.rate == Int(Self.rate))
        let speech = read.samples
        var clean = [Float](repeating: 0, count: Int(5 * Self.rate))
        let at = Int(Self.rate)
        try #require(at + speech.count < clean.count)
        for i in speech.indices { clean[at + i] = speech[i] }
        var truth = [Bool](repeating: false, count: clean.count / Self.hop)
        for (i, s) in Self.speechFrames(speech).enumerated() { truth[at / Self.hop + i] = s }
        var power = 0.0, count = 0
        for (f, s) in truth.enumerated() where s {
            for i in (f * Self.hop)..<((f + 1) * Self.hop) { power += Double(clean[i] * clean[i]); count += 1 }
        }
        let gain = Float(sqrt(power / Double(count) * pow(10, noiseAbove / 10)))
        var recalls: [Double] = [], falseAlarms: [Double] = []
        for seed in [UInt64(3), 5, 9] {
            let n = Self.noise(pink: pink, count: clean.count, seed: seed)
            let x = clean.indices.map { 0.3 * (clean[$0] + gain * n[$0]) / (1 + 4 * gain) }
            var found = [Bool](repeating: false, count: truth.count)
            var start: Double?
            for (kind, t, _) in try await VoiceActivityDetectorTests().vad(x) {
                if kind == "start" { start = t }
                if kind == "end", let s = start {
                    for f in Int(s * 100)..<min(found.count, Int(t * 100)) { found[f] = true }
                    start = nil
                }
            }
            if let s = start { for f in Int(s * 100)..<found.count { found[f] = true } }
            let speechFrames = truth.filter { $0 }.count
            recalls.append(Double(zip(truth, found).filter { $0 && $1 }.count) / Double(speechFrames))
            falseAlarms.append(Double(zip(truth, found).filter { !$0 && $1 }.count) / Double(truth.count - speechFrames))
        }
        let recall = recalls.reduce(0, +) / 3
        #expect(recall >= 0.85 && falseAlarms.allSatisfy { $0 <= 0.05 },
                "\(pink ? "pink" : "white") noise \(noiseAbove) dB above the speech: found \(recalls.map { Int($0 * 100) }) % of it, false alarms \(falseAlarms.map { Int($0 * 100) }) %")
    }
}
