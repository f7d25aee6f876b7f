@_spi(Tuning) import AudioGraphDSP
import Foundation

/// Writes the vad model's inputs for raw float32 mono files (`Tools/vad_model` fits on them):
/// for each IN, OUT gets the frame width, then `SpeechFeatureDump.width` float32 values per frame.
func vadFeatures(_ args: [String]) throws {
    guard args.count >= 3, args.count % 2 == 1, let rate = Double(args[0]) else {
        print("USAGE: audiograph-bench vad-features RATE IN.f32 OUT.f32 [IN.f32 OUT.f32 ...]")
        exit(2)
    }
    for k in stride(from: 1, to: args.count, by: 2) {
        let data = try Data(contentsOf: URL(fileURLWithPath: args[k]))
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let out = [Float(SpeechFeatureDump.width)] + SpeechFeatureDump.frames(samples, rate: rate)
        try out.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: args[k + 1]))
    }
}
