import AudioGraphCore
import Foundation

/// Watches the input's levels and the VAD's decisions and says, like SpeechKit's
/// suggestions, what most likely went wrong when a session hears nothing useful.
/// Fed on the delivery thread; read at the end.
final class InputAdvisor: @unchecked Sendable {
    private let lock = NSLock()
    private var peak: Float = 0
    private var blocks = 0
    private var loudBlocks = 0
    /// Histogram of block levels outside speech, 1 dB bins from -120 dBFS (bounded memory
    /// however long the session).
    private var quietLevels = [Int](repeating: 0, count: 121)
    private var inSpeech = false
    private var modelFailed = false
    private var speechStarts: [Double] = []
    private var clipped = 0

    /// One block of the input (the first source's output).
    func observe(_ b: AudioBuffer) {
        var sum: Float = 0, pk: Float = 0, clips = 0
        for c in 0..<b.channelCount {
            for v in b.samples(c) {
                sum += v * v
                let a = abs(v)
                pk = max(pk, a)
                if a >= 0.999 { clips += 1 }
            }
        }
        let rms = (sum / Float(max(1, b.frameLength * b.channelCount))).squareRoot()
        lock.withLock {
            peak = max(peak, pk)
            blocks += 1
            clipped += clips
            if rms > 0.003 { loudBlocks += 1 }
            if !inSpeech {
                // NaN can only come from a custom node (sources replace non-finite samples).
                let db = rms.isFinite ? 20 * log10(max(rms, 1e-6)) : -120
                quietLevels[max(0, min(120, Int(db.rounded()) + 120))] += 1
            }
        }
    }

    func observe(_ e: EngineEvent) {
        lock.withLock {
            switch e {
            case .speechStart(_, let t, _):
                inSpeech = true
                speechStarts.append(t)
            case .speechEnd: inSpeech = false
            case .error(let error) where error.code == .model: modelFailed = true
            default: break
            }
        }
    }

    /// Median level outside speech in dBFS (caller holds the lock).
    private func medianQuietLevel() -> Int? {
        let total = quietLevels.reduce(0, +)
        guard total > 0 else { return nil }
        var seen = 0
        for (bin, n) in quietLevels.enumerated() {
            seen += n
            if 2 * seen >= total { return bin - 120 }
        }
        return nil
    }

    /// A suggestion for how a session ended, or nil when nothing looks wrong.
    func suggestion(for reason: EndReason) -> String? {
        lock.withLock {
            let peakDB = 20 * log10(max(peak, 1e-9))
            // A model that failed to load explains the error by itself: the input did not matter.
            guard reason == .noSpeech || (reason == .error && !modelFailed) else { return nil }
            if clipped > 100 { return "the input is clipping (peaks at full scale): lower the input gain" }
            if blocks > 0 && peak == 0 { return "the input is digital silence: check that the right microphone is selected and not muted" }
            if blocks > 0 && peakDB < -40 { return String(format: "the input is very quiet (peak %.0f dBFS): raise the input gain or move closer", peakDB) }
            if let floor = medianQuietLevel(), floor > -26 {
                return "speech seems buried in noise (background at \(floor) dBFS): move somewhere quieter or closer to the microphone"
            }
            if let first = speechStarts.first, first < 0.05 {
                return "speech started before listening began: wait for the listening cue before speaking"
            }
            if reason == .noSpeech { return "no speech was heard: speak after the listening cue, or raise the input gain" }
            return nil
        }
    }
}
