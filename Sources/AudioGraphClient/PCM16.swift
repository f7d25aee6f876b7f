import Foundation

/// Samples in -1...1 as little-endian 16-bit PCM, the one encoding speech travels in between
/// audiograph's clients and server (Wyoming's audio-chunk payloads, the audiograph protocol's
/// binary frames, a remote session's audio).
package enum PCM16 {
    /// `samples` as a new buffer.
    package static func data(_ samples: ArraySlice<Float>) -> Data {
        var pcm = Data()
        encode(samples, into: &pcm)
        return pcm
    }

    /// `samples` into `pcm`, resized to fit (a caller that reuses `pcm` allocates once).
    package static func encode(_ samples: ArraySlice<Float>, into pcm: inout Data) {
        if pcm.count != 2 * samples.count { pcm.count = 2 * samples.count }
        pcm.withUnsafeMutableBytes { raw in
            for (i, v) in samples.enumerated() {
                raw.storeBytes(of: Int16(max(-32768, min(32767, (v * 32768).rounded()))).littleEndian, toByteOffset: 2 * i, as: Int16.self)
            }
        }
    }
}
