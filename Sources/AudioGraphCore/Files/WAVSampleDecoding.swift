extension WAVHeader.Encoding {
    /// Converts `count` samples of this encoding, `stride` bytes apart from `src` (one
    /// channel of interleaved frames), to floats in -1...1 at `out`, `outStride` apart.
    /// Float samples that are not finite become silence. No allocation (real-time safe).
    func decode(_ src: UnsafeRawPointer, stride: Int, count: Int, into out: UnsafeMutablePointer<Float>, outStride: Int = 1) {
        switch self {
        case .int(bits: 16):
            for i in 0..<count {
                out[i * outStride] = Float(Int16(littleEndian: src.loadUnaligned(fromByteOffset: i * stride, as: Int16.self))) * (1 / 32768)
            }
        case .int(bits: 24):
            let p = src.assumingMemoryBound(to: UInt8.self)
            for i in 0..<count {
                let q = p + i * stride
                let v = Int32(bitPattern: UInt32(q[0]) << 8 | UInt32(q[1]) << 16 | UInt32(q[2]) << 24) >> 8
                out[i * outStride] = Float(v) * (1 / 8_388_608)
            }
        case .int(bits: 32):
            for i in 0..<count {
                let v = Int32(littleEndian: src.loadUnaligned(fromByteOffset: i * stride, as: Int32.self))
                out[i * outStride] = Float(Double(v) * (1 / 2_147_483_648.0))
            }
        case .int:  // 8-bit, unsigned
            let p = src.assumingMemoryBound(to: UInt8.self)
            for i in 0..<count { out[i * outStride] = (Float(p[i * stride]) - 128) * (1 / 128) }
        case .float(bits: 32):
            for i in 0..<count {
                let v = Float(bitPattern: UInt32(littleEndian: src.loadUnaligned(fromByteOffset: i * stride, as: UInt32.self)))
                out[i * outStride] = v.isFinite ? v : 0
            }
        case .float:
            for i in 0..<count {
                // Doubles beyond Float's range become infinite here: silence too.
                let v = Float(Double(bitPattern: UInt64(littleEndian: src.loadUnaligned(fromByteOffset: i * stride, as: UInt64.self))))
                out[i * outStride] = v.isFinite ? v : 0
            }
        case .muLaw:
            let p = src.assumingMemoryBound(to: UInt8.self)
            for i in 0..<count { out[i * outStride] = G711.muLaw[Int(p[i * stride])] }
        case .aLaw:
            let p = src.assumingMemoryBound(to: UInt8.self)
            for i in 0..<count { out[i * outStride] = G711.aLaw[Int(p[i * stride])] }
        }
    }
}
