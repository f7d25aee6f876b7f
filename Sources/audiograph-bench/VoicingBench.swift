import AudioGraphDSP
import Foundation

/// The recognizer's voicing track (`VoicingTrack`, an input of the word confidences) on
/// `seconds` of a pulse train in noise, fed in 20 ms blocks as the recognizer feeds it: CPU
/// per second of audio, median of five runs.
func benchVoicing(seconds: Double = 60) {
    var state: UInt64 = 1
    let x: [Int16] = (0..<Int(seconds * 16000)).map { i in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let t = Double(i % 114) / 16000
        return Int16(clamping: Int(6000 * exp(-t * 400) * sin(2 * .pi * 700 * t)) + Int(state >> 54) - 512)
    }
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
