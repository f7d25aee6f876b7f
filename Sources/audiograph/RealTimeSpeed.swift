import Foundation

/// How fast audio went through, as the end lines and the batch progress say it: "31x real
/// time", "2.5x real time", "0.38x real time" (slower than the audio plays: a costly grammar,
/// an overloaded machine), with the digits a ratio of that size needs.
enum RealTimeSpeed {
    static func text(audio: Double, wall: Double) -> String {
        let ratio = audio / wall
        return String(format: ratio >= 10 ? "%.0fx real time" : ratio >= 1 ? "%.1fx real time" : "%.2fx real time", ratio)
    }
}
