import Foundation

/// The resampler's quality presets, each a documented anti-alias filter.
///
/// Frequencies are relative to the *edge*, the Nyquist frequency of the lower of the two
/// rates. Every preset is flat up to 0.9 × edge (within `ripple`) and reaches its full
/// `attenuation` at the edge itself, so nothing above the edge aliases into the output
/// (downsampling) and no image survives above it (upsampling). Presets differ in
/// attenuation, and so in filter length and speed.
public enum ResamplerQuality: String, CaseIterable, Sendable {
    case low, medium, high
    case veryHigh = "very-high"

    /// End of the flat band, × edge.
    public var passband: Double { 0.9 }

    /// Start of the stopband, × edge.
    public var stopband: Double { 1.0 }

    /// Stopband attenuation in dB that the filter is designed for. Measured figures
    /// (`Tools/bench resample`) come out a few dB better. Float32 sums floor near 140 dB,
    /// so very-high accumulates in double precision (153 dB measured at 48k -> 16k).
    public var attenuation: Double {
        switch self {
        case .low: return 60
        case .medium: return 100
        case .high: return 130
        case .veryHigh: return 150
        }
    }

    /// Bound on passband ripple in dB, peak to peak (a Kaiser design ripples by about the
    /// stopband's amplitude).
    public var ripple: Double {
        switch self {
        case .low: return 0.01
        case .medium: return 0.0001
        case .high, .veryHigh: return 0.00001
        }
    }

    /// One line for docs and `audiograph nodes`.
    public static var summary: String {
        "flat to 90% of the lower Nyquist, full rejection from 100%: "
            + allCases.map { "\($0.rawValue) \(Int($0.attenuation)) dB" }.joined(separator: ", ")
    }
}
