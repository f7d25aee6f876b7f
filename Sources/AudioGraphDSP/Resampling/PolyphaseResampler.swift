import CDSPKernels

/// Streaming rational resampler for one channel: input in any block sizes, output
/// identical whatever they are. All memory is allocated at creation.
///
/// Input is appended to a history buffer; every output whose window of input is complete
/// is computed; consumed history is moved down. At the end of input the missing future is
/// zeros, and the total output is round(N · L / M) frames for N input frames.
final class PolyphaseResampler {
    let filter: PolyphaseFilter
    private let coefficients: UnsafeMutablePointer<Float>
    private let history: UnsafeMutablePointer<Float>
    private let capacity: Int
    /// Absolute input index of history[0], and frames held.
    private var base = 0
    private var held = 0
    /// Input frames received so far; outputs produced so far.
    private var received = 0
    private var produced = 0

    /// Accumulates in double precision (the very-high preset).
    let precise: Bool

    init(filter: PolyphaseFilter, maxInputFrames: Int, precise: Bool = false) {
        self.filter = filter
        self.precise = precise
        let c = UnsafeMutablePointer<Float>.allocate(capacity: filter.coefficients.count)
        filter.coefficients.withUnsafeBufferPointer { c.initialize(from: $0.baseAddress!, count: $0.count) }
        coefficients = c
        capacity = maxInputFrames + 2 * filter.taps + 16
        history = .allocate(capacity: capacity)
        reset()
    }

    deinit {
        coefficients.deallocate()
        history.deallocate()
    }

    /// Back to time 0: the past before the first frame is silence.
    func reset() {
        history.initialize(repeating: 0, count: capacity)
        // Pretend halfTaps zeros precede the stream so the first outputs see silence.
        base = -filter.taps
        held = filter.taps
        received = 0
        produced = 0
    }

    /// Largest output for an input block of `frames` (including the end-of-input flush).
    static func maxOutput(filter: PolyphaseFilter.Shape, inputFrames: Int) -> Int {
        (inputFrames + filter.taps + 2) * filter.up / filter.down + 4
    }

    /// Consumes `count` input frames and writes up to `maxOut` outputs; returns how many.
    /// With `ending`, the input after the last frame is taken as zeros and the remaining
    /// outputs are produced, round(frames · up / down) in all. Real-time safe.
    func process(_ input: UnsafePointer<Float>, count: Int, ending: Bool,
                 output: UnsafeMutablePointer<Float>, maxOut: Int) -> Int {
        process(input, count: count, ending: ending, output: output, maxOut: maxOut, total: nil)
    }

    /// ``process(_:count:ending:output:maxOut:)`` with the whole conversion's output length
    /// (`total`) when a first stage that rounded its own length knows it.
    func process(_ input: UnsafePointer<Float>, count: Int, ending: Bool,
                 output: UnsafeMutablePointer<Float>, maxOut: Int, total: Int?) -> Int {
        // Append the input.
        (history + held).update(from: input, count: count)
        held += count
        received += count
        let up = filter.up, down = filter.down, taps = filter.taps, halfTaps = filter.halfTaps
        // How many outputs have their whole input window available.
        var n: Int
        if ending {
            n = min(maxOut, (total ?? resampledLength(received, up: up, down: down)) - produced)
            if n > 0 {
                // The future after the last frame is silence.
                let last = (produced + n - 1) * down / up + halfTaps
                let need = min(last - base + 1, capacity)
                if need > held {
                    (history + held).update(repeating: 0, count: need - held)
                    held = need
                }
                n = min(n, max(0, ((base + held - halfTaps) * up - 1) / down + 1 - produced))
            }
        } else {
            let limit = received - halfTaps  // outputs with i < limit are complete
            n = limit > 0 ? min(maxOut, ((limit * up - 1) / down) + 1 - produced) : 0
        }
        n = max(0, n)
        if n > 0 {
            (precise ? ag_polyphase_run_precise : ag_polyphase_run)(
                coefficients, Int64(taps), Int64(up), Int64(down), history, Int64(base), Int64(produced), Int64(n), output)
            produced += n
        }
        // Drop history no future output needs.
        let nextI = produced * down / up
        let keepFrom = nextI - halfTaps + 1
        let drop = min(max(0, keepFrom - base), held)
        if drop > 0 {
            history.update(from: history + drop, count: held - drop)
            held -= drop
            base += drop
        }
        return n
    }
}
