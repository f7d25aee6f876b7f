import AudioGraphCore
import AudioGraphDSP
import Foundation

/// Short sounds bound to an assistant's states (SpeechKit's SKEarcon), played by a
/// `speech-synth` through the graph's playback: `start` when it begins to listen for a
/// command, `end` when it has understood one, `cancel` when the command was cancelled,
/// `error` when nothing was said or understood. Each is a built-in tone (`tone`, the
/// default, at most 0.25 s), a WAV file (any rate or channels: mixed down and resampled to
/// the voice's rate when loaded), or `none`.
enum Earcon: String, CaseIterable, Sendable {
    case start, end, cancel, error

    /// The node parameter that declares it.
    var parameter: String { "earcon-\(rawValue)" }

    /// The sound `spec` names, at `rate` Hz; nil for `none`. A relative path has been resolved by the graph file (against its folder).
    func samples(_ spec: String, rate: Int) throws(EngineError) -> [Float]? {
        switch spec {
        case "none": return nil
        case "tone": return tone(rate: rate)
        default:
            let (x, r) = try WAVFile.monoSamples(path: spec)
            guard !x.isEmpty else {
                throw EngineError(.audioFile, "\(spec): no audio in the \(rawValue) earcon", parameter: parameter)
            }
            return Resampler.convert(x, from: r, to: rate)
        }
    }

    /// The built-in tone: notes (Hz, seconds; 0 Hz is a rest) with 5 ms raised-cosine edges.
    func tone(rate: Int) -> [Float] {
        let notes: [(Double, Double)] = switch self {
        case .start: [(660, 0.08), (0, 0.01), (990, 0.1)]      // rising: speak now
        case .end: [(990, 0.08), (0, 0.01), (660, 0.1)]        // falling: got it
        case .cancel: [(523, 0.12)]
        case .error: [(330, 0.09), (0, 0.04), (330, 0.09)]     // low, twice
        }
        var out: [Float] = []
        let edge = Int(0.005 * Double(rate))
        for (f, d) in notes {
            let n = Int(d * Double(rate))
            for i in 0..<n {
                guard f > 0 else { out.append(0); continue }
                let fade = min(1, Double(min(i, n - 1 - i)) / Double(edge))
                let env = 0.5 - 0.5 * cos(.pi * fade)
                out.append(Float(0.3 * env * sin(2 * .pi * f * Double(i) / Double(rate))))
            }
        }
        return out
    }
}
