import Foundation

/// When the echo canceller holds its echo (`hold`): measured on what the listeners hear, at
/// the start and again at each answer.
extension EchoCanceller {
    /// What half a second of frames measured: energies of reference and output (whole band and
    /// treble) over the frames something played, those frames, and every frame.
    struct HoldWindow {
        var refEnergy: Float = 0, outEnergy: Float = 0, refTreble: Float = 0, outTreble: Float = 0
        var activeFrames = 0, frames = 0
    }

    /// The filter starts over: it does not hold the echo until measured again.
    func startMeasuring() {
        holds = false
        holdWindow = HoldWindow()
        windowsHeld = 0
    }

    /// After each frame while the filter does not hold: over every 25 frames (0.5 s), how far
    /// below what played the output stays where the reference played (at least 10 such
    /// frames: the room's own loss and the filter's together, so a quiet echo holds at once),
    /// over the whole band and its treble (the second difference: a filter a fraction of a
    /// sample off its echo, after the clocks drifted through a pause, still takes out the
    /// low band and leaves the sibilants, which start speech); two windows in a row at `hold`
    /// dB or more in both and it holds. A window with too little sound breaks the row: the
    /// two earcons around a command (short tones, which a filter far from the echo's path
    /// still takes out) are not an answer's measure.
    /// `played`: the reference frame's energy when it played something, else nil. Returns how
    /// far under what played the output stayed (dB) when this frame made it hold, else nil.
    func measure(played: Float?) -> Double? {
        if let r = played {
            holdWindow.refEnergy += r
            holdWindow.outEnergy += Self.energy(outFrame)
            holdWindow.refTreble += Self.trebleEnergy(refFrame)
            holdWindow.outTreble += Self.trebleEnergy(outFrame)
            holdWindow.activeFrames += 1
        }
        holdWindow.frames += 1
        guard holdWindow.frames >= 25 else { return nil }
        let w = holdWindow
        holdWindow = HoldWindow()
        guard w.activeFrames >= 10 else {
            windowsHeld = 0
            return nil
        }
        let below = 10 * log10(Double(w.refEnergy) / Double(max(w.outEnergy, 1)))
        let trebleBelow = 10 * log10(Double(w.refTreble) / Double(max(w.outTreble, 1)))
        windowsHeld = min(below, trebleBelow) >= holdERLE ? windowsHeld + 1 : 0
        guard windowsHeld >= 2 else { return nil }
        holds = true
        interruptionsAtHold = gate.interruptionCount
        return min(below, trebleBelow)
    }

    /// A 20 ms frame's second difference's energy: its treble (at 16 kHz: +6 dB at 4 kHz,
    /// -5 dB at 2 kHz, -16 dB at 1 kHz).
    private static func trebleEnergy(_ f: [Int16]) -> Float {
        var e: Float = 0
        for i in 2..<f.count {
            let d = Float(f[i]) - 2 * Float(f[i - 1]) + Float(f[i - 2])
            e += d * d
        }
        return e
    }
}
