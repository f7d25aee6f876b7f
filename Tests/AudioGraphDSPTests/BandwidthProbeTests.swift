@testable import AudioGraphDSP
import Foundation
import Testing

@Suite struct BandwidthProbeTests {
    /// Sines at `frequencies` (Hz) at 16 kHz, each at `level` peak, for `seconds`.
    static func tones(_ frequencies: [Double], level: Float = 0.1, seconds: Double = 3) -> [Float] {
        (0..<Int(seconds * 16000)).map { i in
            frequencies.reduce(Float(0)) { $0 + level * Float(sin(2 * .pi * $1 * Double(i) / 16000)) }
        }
    }

    static func decide(_ x: [Float], block: Int = 1024) -> (band: BandwidthProbe.Band?, decidedAt: Int?) {
        var probe = BandwidthProbe()
        var at: Int?
        var i = 0
        while i < x.count {
            let n = min(block, x.count - i)
            if x.withUnsafeBufferPointer({ probe.scan($0.baseAddress! + i, n) }) != nil { at = i + n }
            i += n
        }
        return (probe.band, at)
    }

    @Test func energyAbove5kHzIsWide() {
        let r = Self.decide(Self.tones([300, 1200, 6000]))
        #expect(r.band == .wide)
        // Decided once, after 2 s of loud frames.
        #expect(r.decidedAt.map { $0 >= 32000 && $0 < 32000 + 1024 } == true, "\(String(describing: r.decidedAt))")
    }

    @Test func nothingAbove4kHzIsNarrow() {
        #expect(Self.decide(Self.tones([300, 1200, 3400])).band == .narrow)
        // A trace above 5 kHz, 70 dB down, is still narrow; 40 dB down is wide.
        #expect(Self.decide(zip(Self.tones([300, 1200]), Self.tones([6500], level: 0.2 * pow(10, -70.0 / 20))).map(+)).band == .narrow)
        #expect(Self.decide(zip(Self.tones([300, 1200]), Self.tones([6500], level: 0.2 * pow(10, -40.0 / 20))).map(+)).band == .wide)
    }

    @Test func quietOrShortInputIsNotDecided() {
        #expect(Self.decide(Self.tones([300, 6000], level: 0.001)).band == nil)  // frames under -45 dBFS
        #expect(Self.decide(Self.tones([300, 3400], seconds: 1.9)).band == nil)
    }
}
