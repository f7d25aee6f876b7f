import Foundation

/// The echo canceller's last stage: per frequency bin, what of the output is still the echo is
/// taken out, and what is the user's voice is left, judged by coherence (the nonlinear
/// processor of WebRTC's first echo canceller works the same way).
///
/// Two coherences per bin, over about 0.1 s: of the filter's output with the reference at the
/// echo's lag (high where the output is still what plays: a leak, or the filter's residual),
/// and of the output with the microphone (high where the filter took nothing out: the user's
/// voice, or a leak; low where it took the echo out and left its residual). The bin's gain is
/// the smaller of "not the reference" and "still the microphone", raised to `overdrive`:
/// - a filter that holds its echo: the residual is partly the reference and no longer the
///   microphone: taken down;
/// - a filter off its echo in part of the band (the treble, a fraction of a sample off after
///   the clocks drifted), or still converging on it (the first answer): the output there is the
///   microphone and the reference: taken down;
/// - a user speaking over the answer: the output is the microphone and not the reference: kept.
///
/// With `lateEcho` above 0, a bin's gain is also at most what is left of its power once the
/// echo past the filter's tail (``LateEchoEstimator``, fed the reference's spectrum as it leaves
/// the tail) times `lateEcho` is taken from it.
///
/// Spectra of 40 ms windows (square-root Hann) every 20 ms frame, resynthesised by overlap-add:
/// the output is one frame later. Real-time safe after `init`: nothing allocated per frame.
final class CoherenceSuppressor {
    let frame: Int, size: Int, maxLag: Int
    /// Frames the output to suppress lags the microphone and the filter's output by (0 or 1:
    /// speexdsp's preprocessor in between holds one): the spectra are measured that much back.
    let outputLag: Int
    let overdrive: Float
    private let fft: RealFFT
    private let bins: Int
    private let window: UnsafeMutablePointer<Float>
    /// The last frames of microphone and filter output (two, and `outputLag` more), and the
    /// last two of the output to suppress.
    private let mic: UnsafeMutablePointer<Float>, err: UnsafeMutablePointer<Float>, out: UnsafeMutablePointer<Float>
    /// The reference's last `size + maxLag` samples, a ring.
    private let ref: UnsafeMutablePointer<Float>
    private var refHead = 0
    /// Spectra of this frame: reference, microphone, filter output (re, im pairs).
    private let x: UnsafeMutablePointer<Float>, d: UnsafeMutablePointer<Float>, e: UnsafeMutablePointer<Float>
    /// Averaged auto- and cross-spectra.
    private let sxx: UnsafeMutablePointer<Float>, sdd: UnsafeMutablePointer<Float>, see: UnsafeMutablePointer<Float>
    private let sxe: UnsafeMutablePointer<Float>, sde: UnsafeMutablePointer<Float>
    /// The second half of the last frame's resynthesis.
    private let overlap: UnsafeMutablePointer<Float>
    /// The echo past the filter's tail (``LateEchoEstimator``), taken out this strongly (the
    /// prediction times `lateStrength` is subtracted from each bin's power; 0: not at all), and
    /// the power spectrum of the reference leaving the tail.
    let late: LateEchoEstimator
    let lateStrength: Float
    private let leaving: UnsafeMutablePointer<Float>
    /// Each frame keeps this much of the averages (about 0.1 s at 20 ms frames).
    static let memory: Float = 0.8
    /// The least gain of a bin (-40 dB).
    static let floorGain: Float = 0.01
    /// The least gain the late echo's suppression leaves a bin (-20 dB): deeper, a quieter
    /// user's first words right after an answer stops went with the room's late echo (in a
    /// reverberant room offline, 12/24 interrupting commands at -10 dB exact at -40 dB, 18/24
    /// at -20 dB; `Tools/bench echo-reverb`).
    static let lateFloor: Float = 0.1

    /// For 20 ms frames of `frame` samples, the echo up to `maxLag` samples after its
    /// reference, the output to suppress `outputLag` frames behind the others. Nil when FFTW
    /// cannot plan the transform.
    init?(frame: Int, maxLag: Int, overdrive: Double, outputLag: Int = 0, lateEcho: Double = 0) {
        self.frame = frame
        size = 2 * frame
        self.outputLag = max(0, min(1, outputLag))
        self.maxLag = max(0, maxLag) + self.outputLag * frame
        self.overdrive = Float(overdrive)
        guard let f = RealFFT(size: size) else { return nil }
        fft = f
        bins = size / 2 + 1
        window = .allocate(capacity: size)
        for i in 0..<size { window[i] = Float(sin(Double.pi * Double(i) / Double(size))) }
        mic = .allocate(capacity: size + frame)
        err = .allocate(capacity: size + frame)
        out = .allocate(capacity: size)
        ref = .allocate(capacity: size + self.maxLag)
        x = .allocate(capacity: 2 * bins)
        d = .allocate(capacity: 2 * bins)
        e = .allocate(capacity: 2 * bins)
        sxx = .allocate(capacity: bins)
        sdd = .allocate(capacity: bins)
        see = .allocate(capacity: bins)
        sxe = .allocate(capacity: 2 * bins)
        sde = .allocate(capacity: 2 * bins)
        overlap = .allocate(capacity: frame)
        late = LateEchoEstimator(bins: bins)
        lateStrength = Float(lateEcho)
        leaving = .allocate(capacity: bins)
        reset()
    }

    deinit {
        for p in [window, mic, err, out, ref, x, d, e, sxx, sdd, see, sxe, sde, overlap, leaving] { p.deallocate() }
    }

    /// Forgets every signal and average.
    func reset() {
        for p in [mic, err] { p.update(repeating: 0, count: size + frame) }
        out.update(repeating: 0, count: size)
        ref.update(repeating: 0, count: size + maxLag)
        for p in [sxx, sdd, see] { p.update(repeating: 0, count: bins) }
        for p in [sxe, sde] { p.update(repeating: 0, count: 2 * bins) }
        overlap.update(repeating: 0, count: frame)
        late.reset()
        refHead = 0
    }

    /// One frame: the microphone, the filter's output, the reference the filter worked with
    /// (the echo `lag` samples after it, 0...maxLag) and `output`, the frame to pass on, which
    /// is replaced by the last frame's, suppressed where `active` (an echo may be there).
    func process(mic m: [Int16], filtered f: [Int16], reference r: [Int16], output o: inout [Int16],
                 lag: Int, active: Bool) {
        let refCount = size + maxLag
        for v in r {
            ref[refHead] = Float(v)
            refHead = refHead + 1 == refCount ? 0 : refHead + 1
        }
        shift(mic, m, keeping: size + frame)
        shift(err, f, keeping: size + frame)
        shift(out, o, keeping: size)
        // The windows the output's lines up with: `outputLag` frames back, and the
        // reference's `lag` samples before those.
        let back = outputLag * frame
        let first = refHead + maxLag - min(max(lag, 0) + back, maxLag)
        for i in 0..<size { fft.input[i] = ref[(first + i) % refCount] * window[i] }
        spectrum(into: x)
        let start = frame - back
        for i in 0..<size { fft.input[i] = mic[start + i] * window[i] }
        spectrum(into: d)
        for i in 0..<size { fft.input[i] = err[start + i] * window[i] }
        spectrum(into: e)
        if lateStrength > 0 {
            // The oldest window the ring holds: the reference just past the filter's reach.
            for i in 0..<size { fft.input[i] = ref[(refHead + i) % refCount] * window[i] }
            fft.transform()
            for k in 0..<bins { leaving[k] = fft.output[2 * k] * fft.output[2 * k] + fft.output[2 * k + 1] * fft.output[2 * k + 1] }
            late.update(leaving: leaving)
        }
        let a = Self.memory, b = 1 - Self.memory
        for k in 0..<bins {
            let xr = x[2 * k], xi = x[2 * k + 1], dr = d[2 * k], di = d[2 * k + 1], er = e[2 * k], ei = e[2 * k + 1]
            sxx[k] = a * sxx[k] + b * (xr * xr + xi * xi)
            sdd[k] = a * sdd[k] + b * (dr * dr + di * di)
            see[k] = a * see[k] + b * (er * er + ei * ei)
            sxe[2 * k] = a * sxe[2 * k] + b * (xr * er + xi * ei)
            sxe[2 * k + 1] = a * sxe[2 * k + 1] + b * (xi * er - xr * ei)
            sde[2 * k] = a * sde[2 * k] + b * (dr * er + di * ei)
            sde[2 * k + 1] = a * sde[2 * k + 1] + b * (di * er - dr * ei)
        }
        // The output's window, suppressed bin by bin, back to time and overlapped.
        for i in 0..<size { fft.input[i] = out[i] * window[i] }
        fft.transform()
        if active {
            for k in 0..<bins {
                var g = gain(k)
                if lateStrength > 0 {
                    // What of the bin's power the late echo is predicted to be, subtracted.
                    let o = fft.output[2 * k] * fft.output[2 * k] + fft.output[2 * k + 1] * fft.output[2 * k + 1]
                    let l = lateStrength * late.power(k)
                    if l > 0 { g = min(g, max(Self.lateFloor, o > l ? ((o - l) / o).squareRoot() : 0)) }
                }
                fft.output[2 * k] *= g
                fft.output[2 * k + 1] *= g
            }
        }
        fft.inverse()
        let scale = 1 / Float(size)
        for i in 0..<frame {
            let v = fft.input[i] * window[i] * scale + overlap[i]
            o[i] = Int16(max(-32768, min(32767, v.rounded())))
            overlap[i] = fft.input[frame + i] * window[frame + i] * scale
        }
    }

    /// Bin `k`'s gain: the smaller of the output's incoherence with the reference and its
    /// coherence with the microphone, to the power `overdrive`, at least `floorGain`.
    @inline(__always)
    private func gain(_ k: Int) -> Float {
        let ee = see[k]
        guard ee > 1 else { return 1 }  // nothing there (below an LSB's power)
        let xe = sxx[k] > 0 ? (sxe[2 * k] * sxe[2 * k] + sxe[2 * k + 1] * sxe[2 * k + 1]) / (sxx[k] * ee) : 0
        let de = sdd[k] > 0 ? (sde[2 * k] * sde[2 * k] + sde[2 * k + 1] * sde[2 * k + 1]) / (sdd[k] * ee) : 1
        let g = max(0, min(1, min(de, 1 - xe)))
        return max(Self.floorGain, pow(g, overdrive))
    }

    /// Drops the oldest frame of a buffer of `count` samples and appends `frameIn`.
    private func shift(_ buffer: UnsafeMutablePointer<Float>, _ frameIn: [Int16], keeping count: Int) {
        buffer.update(from: buffer + frame, count: count - frame)
        for i in 0..<frame { buffer[count - frame + i] = Float(frameIn[i]) }
    }

    private func spectrum(into s: UnsafeMutablePointer<Float>) {
        fft.transform()
        s.update(from: fft.output, count: 2 * bins)
    }
}
