@testable import AudioGraphDSP
import Foundation
import Testing

/// The pieces the echo canceller follows a drifting clock with: the delay line read at a
/// fractional rate, and the line through the measured delays.
@Suite struct EchoDriftTests {
    /// Read at a step of 1 from a whole position, the line gives back its input bit for bit
    /// (an echo that does not drift is cancelled exactly as without it).
    @Test func aWholeStepChangesNothing() {
        var line = FractionalDelayLine(capacity: 4096)
        var input = (0..<2000).map { Float(sin(Double($0) * 0.05) * 0.5) }
        line.readPosition = -100
        input.withUnsafeMutableBufferPointer { line.push($0.baseAddress!, count: 2000) }
        var out = [Int16](repeating: 0, count: 1000)
        line.pop(into: &out)
        #expect(out[0..<100].allSatisfy { $0 == 0 })
        let expected = input[0..<900].map { Int16(($0 * 32768).rounded()) }
        #expect(Array(out[100..<1000]) == expected)
    }

    /// Half a sample between two inputs: a 1 kHz tone read there is the tone half a sample
    /// later, within -60 dB.
    @Test func aFractionalPositionInterpolates() {
        var line = FractionalDelayLine(capacity: 8192)
        let w = 2 * Double.pi * 1000 / 16000
        var input = (0..<4000).map { Float(sin(Double($0) * w) * 0.5) }
        input.withUnsafeMutableBufferPointer { line.push($0.baseAddress!, count: 4000) }
        line.readPosition = 1000.5
        var out = [Int16](repeating: 0, count: 1000)
        line.pop(into: &out)
        var err = 0.0, sig = 0.0
        for i in 0..<1000 {
            let want = sin((1000.5 + Double(i)) * w) * 0.5 * 32768
            err += (Double(out[i]) - want) * (Double(out[i]) - want)
            sig += want * want
        }
        #expect(10 * log10(err / sig) < -60, "\(10 * log10(err / sig)) dB")
    }

    /// Delays creeping at 100 ppm, with estimation noise and an occasional wrong peak 10
    /// samples off: the slope is found within 3 ppm and the wrong peaks do not move the line.
    @Test func theSlopeIsFoundAndWrongPeaksLeftOut() {
        var tracker = EchoDriftTracker(rate: 16000)
        var seed: UInt64 = 7
        func noise() -> Double {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Double(seed >> 11) / Double(1 << 53) - 0.5
        }
        for k in 0..<80 {
            let t = Double(k) * 4000  // every 0.25 s
            let truth = 2000 + 100e-6 * t
            tracker.add(time: t, delay: truth + 0.4 * noise() + (k % 13 == 5 ? 10 : 0))
        }
        let slope = tracker.slope ?? 0
        #expect(abs(slope - 100e-6) < 3e-6, "\(slope * 1e6) ppm")
        let now = 79.0 * 4000
        #expect(abs((tracker.delay(at: now) ?? 0) - (2000 + 100e-6 * now)) < 0.2)
    }

    /// A delay that jumps (the sound server's latency changed) starts the line over from the
    /// three delays that agree on it.
    @Test func aJumpStartsTheLineOver() {
        var tracker = EchoDriftTracker(rate: 16000)
        for k in 0..<40 { tracker.add(time: Double(k) * 4000, delay: 2000) }
        #expect(tracker.slope != nil)
        tracker.add(time: 40 * 4000, delay: 2400)
        tracker.add(time: 41 * 4000, delay: 2400)
        #expect(tracker.slope != nil)  // two are left out
        tracker.add(time: 42 * 4000, delay: 2400)
        #expect(tracker.slope == nil)  // three start it over
        for k in 43..<53 { tracker.add(time: Double(k) * 4000, delay: 2400) }
        #expect(abs((tracker.delay(at: 53 * 4000) ?? 0) - 2400) < 0.01)
    }

    /// A reverberant room's early reflection, 9 samples after the echo, the strongest peak
    /// twice in a row (seen in the room), and then after a pause the echo again: the line
    /// stays where the echo is and level (it had been drawn from the two and the echo,
    /// 170 ppm steep, and slewed a held echo by 7 samples).
    @Test func aReflectionTwiceInARowDoesNotMoveTheLine() {
        var tracker = EchoDriftTracker(rate: 16000)
        for k in 0..<24 { tracker.add(time: Double(k) * 4000, delay: 1889) }
        tracker.add(time: 24 * 4000, delay: 1897.8)
        tracker.add(time: 25 * 4000, delay: 1897.8)
        for k in 35..<42 { tracker.add(time: Double(k) * 4000, delay: 1889) }  // after 2.5 s of pause
        let slope = tracker.slope ?? 1
        #expect(abs(slope) < 5e-6, "\(slope * 1e6) ppm")
        #expect(abs((tracker.delay(at: 42 * 4000) ?? 0) - 1889) < 0.2)
    }
}
