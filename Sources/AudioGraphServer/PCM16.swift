import Foundation

/// Samples in -1...1 as little-endian 16-bit PCM, the one encoding the server sends speech in
/// (Wyoming's audio-chunk payloads, the audiograph protocol's binary frames).
enum PCM16 {
    static func data(_ samples: ArraySlice<Float>) -> Data {
        var pcm = Data(count: 2 * samples.count)
        pcm.withUnsafeMutableBytes { raw in
            for (i, v) in samples.enumerated() {
                raw.storeBytes(of: Int16(max(-32768, min(32767, (v * 32768).rounded()))).littleEndian, toByteOffset: 2 * i, as: Int16.self)
            }
        }
        return pcm
    }
}
