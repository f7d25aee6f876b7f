import CDSPKernels
import Testing

/// The C kernels that replaced Swift loops give the same values as the scalar expressions
/// they stand for, to the bit, for every length (their vector loops and scalar tails).
@Suite struct DSPKernelTests {
    /// Values with every sign, zeros and a spread of magnitudes.
    static func values(_ n: Int, seed: UInt32) -> [Float] {
        var x = seed
        return (0..<n).map { i in
            x = x &* 1_664_525 &+ 1_013_904_223
            if i % 11 == 5 { return 0 }
            return Float(Int32(bitPattern: x)) / Float(Int32.max) * Float(1 << (i % 7))
        }
    }

    @Test func complexMultiplyIsTheScalarProduct() {
        for n in 0...9 {
            let s = Self.values(2 * n, seed: 1), h = Self.values(2 * n, seed: 2)
            var p = [Float](repeating: .nan, count: 2 * n)
            ag_complex_multiply(s, h, &p, Int64(n))
            for k in 0..<n {
                let re = s[2 * k] * h[2 * k] - s[2 * k + 1] * h[2 * k + 1]
                let im = s[2 * k] * h[2 * k + 1] + s[2 * k + 1] * h[2 * k]
                #expect(p[2 * k].bitPattern == re.bitPattern && p[2 * k + 1].bitPattern == im.bitPattern, "n \(n), k \(k)")
            }
        }
    }

    @Test func conjugateReversedWalksDownwards() {
        for n in 1...9 {
            // sTop and pTop point one past bin n-1 of a 2n-bin spectrum's top half.
            let s = Self.values(2 * n, seed: 3), h = Self.values(2 * n, seed: 4)
            var p = [Float](repeating: .nan, count: 2 * n)
            s.withUnsafeBufferPointer { sb in
                p.withUnsafeMutableBufferPointer { pb in
                    ag_complex_multiply_conjugate_reversed(sb.baseAddress! + 2 * n, h, pb.baseAddress! + 2 * n, Int64(n))
                }
            }
            for k in 1..<n {
                let j = 2 * (n - k)  // sTop[-k]
                let re = s[j] * h[2 * k] - s[j + 1] * -h[2 * k + 1]
                let im = s[j] * -h[2 * k + 1] + s[j + 1] * h[2 * k]
                #expect(p[j].bitPattern == re.bitPattern && p[j + 1].bitPattern == im.bitPattern, "n \(n), k \(k)")
            }
            #expect(p[0].isNaN && p[1].isNaN, "bin 0 of the top half is not written (k starts at 1)")
        }
    }

    @Test func peakIsTheLargestOfZeroAndTheValues() {
        for n in 0...21 {
            for seed: UInt32 in [5, 6] {
                let x = Self.values(n, seed: seed)
                #expect(ag_peak(x, Int64(n)) == x.reduce(0, max), "n \(n)")
            }
            let negative = [Float](repeating: -1, count: n)
            #expect(ag_peak(negative, Int64(n)) == 0, "all negative, n \(n)")
        }
    }
}
