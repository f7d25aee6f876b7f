import AudioGraphCore
import AudioGraphDSP
import AudioGraphTestSupport
import Foundation

/// The recognizer's voicing track (`VoicingTrack`, an input of the word confidences) on
/// `seconds` of a voiced tone in noise (`Signals`), fed in 20 ms blocks as the recognizer feeds it: CPU
/// per second of audio, median of five runs.
func benchVoicing(seconds: Double = 60) {
    let voice = Signals.voiced(140, seconds: seconds, rate: 16000), noise = Signals.noise(rms: 0.02, seconds: seconds, rate: 16000)
    let x = zip(voice, noise).map { PCM.int16($0 + $1) }
    var runs: [Double] = []
    for _ in 0..<5 {
        guard let track = VoicingTrack(seconds: 120) else { print("audiograph-bench voicing: FFTW could not plan"); return }
        let c0 = cpuSeconds()
        x.withUnsafeBufferPointer { p in
            var k = 0
            while k < x.count {
                let n = min(320, x.count - k)
                track.append(p.baseAddress! + k, count: n)
                k += n
            }
        }
        runs.append(cpuSeconds() - c0)
        _ = track.loudHalfVoicing([(1, seconds - 1)])
    }
    let median = runs.sorted()[2]
    print(String(format: "| voicing track, %.0f s of audio in 20 ms blocks (median of 5) | %.3f ms CPU per s of audio |", seconds, 1000 * median / seconds))
}
