import Foundation

/// Tells speech that holds nothing above 4 kHz (a telephone recording, a Bluetooth headset in
/// its headset profile, anything once at 8 kHz) from wideband speech, whatever rate it comes
/// at now: a recognizer whose model was trained on 16 kHz speech makes far more errors on it.
///
/// Over 20 ms frames louder than -45 dBFS RMS, it sums the energy of the signal and of its
/// part above 5 kHz (a 63-tap high-pass from the resampler's Kaiser-windowed sinc). After 2 s of such frames the band
/// is decided once: narrow when the part above 5 kHz is under -60 dB of the whole. On the
/// project's recordings (both corpora) wideband speech measured -8 to -51 dB, the same
/// recordings once at 8 kHz -69 to -82 dB (`docs/benchmarks.md`).
///
/// For 16 kHz input. No allocation after `init`; stops working once decided.
package struct BandwidthProbe {
    /// What it decided, once it has heard enough.
    package enum Band: Sendable { case wide, narrow }

    package private(set) var band: Band?
    private let taps: [Float]
    private var line: [Float]
    private var at = 0
    private var frameEnergy = 0.0, frameHigh = 0.0, frameCount = 0
    private var loudEnergy = 0.0, loudHigh = 0.0, loudFrames = 0
    private var primed = false

    static let rate = 16000.0
    static let frame = 320
    static let loudFrameEnergy = 3.1622776601683795e-05  // -45 dBFS RMS, squared
    static let needed = 100  // loud frames: 2 s
    static let narrowBelow = 1e-6  // -60 dB

    /// The high-pass: the whole signal less the resampler's Kaiser-windowed sinc low-pass
    /// (80 dB) cut at 5 kHz.
    package init() {
        let n = 63, centre = (n - 1) / 2, cutoff = 5000.0 / Self.rate
        let beta = kaiserBeta(attenuation: 80), i0beta = besselI0(beta)
        taps = (0..<n).map { i in
            let lowpass = kaiserSinc(Double(i - centre), halfWidth: Double(centre + 1), cutoff: cutoff, beta: beta, i0beta: i0beta)
            return Float((i == centre ? 1 : 0) - lowpass)
        }
        line = [Float](repeating: 0, count: n)
    }

    /// Takes the next `n` samples. Returns the band when this call decided it, else nil.
    package mutating func scan(_ p: UnsafePointer<Float>, _ n: Int) -> Band? {
        guard band == nil else { return nil }
        let count = taps.count
        for i in 0..<n {
            let x = p[i]
            line[at] = x
            at = at + 1 == count ? 0 : at + 1
            var y: Float = 0
            var k = at  // the oldest sample goes with the first tap
            for t in 0..<count {
                y += taps[t] * line[k]
                k = k + 1 == count ? 0 : k + 1
            }
            frameEnergy += Double(x * x)
            frameHigh += Double(y * y)
            frameCount += 1
            if frameCount == Self.frame {
                // The first frame holds the filter's start from silence: a step, not the signal's band.
                if primed && frameEnergy / Double(Self.frame) > Self.loudFrameEnergy {
                    loudEnergy += frameEnergy
                    loudHigh += frameHigh
                    loudFrames += 1
                }
                frameEnergy = 0; frameHigh = 0; frameCount = 0
                primed = true
                if loudFrames == Self.needed {
                    band = loudHigh < Self.narrowBelow * loudEnergy ? .narrow : .wide
                    return band
                }
            }
        }
        return nil
    }
}
