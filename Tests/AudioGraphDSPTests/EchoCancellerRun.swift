import AudioGraph
import AudioGraphCore
import AudioGraphTestSupport

/// Runs an `echo-canceller` node with `params` over a microphone and what plays (same length,
/// one rate), 1024 frames at a time, and returns its output.
func runEchoCanceller(_ params: [String: ParameterValue], mic: [Float], plays: [Float], rate: Double) throws -> [Float] {
    let format = StreamFormat(sampleRate: rate, channelCount: 1)
    let h = try NodeHarness("echo-canceller", params, inputs: [format, format], maxFrames: 1024, registry: .builtin)
    var out: [Float] = []
    for k in stride(from: 0, to: plays.count, by: 1024) {
        let end = min(k + 1024, plays.count)
        h.push(buses: [[Array(mic[k..<end])], [Array(plays[k..<end])]])
        out += h.takeOutput()[0]
    }
    return out
}
