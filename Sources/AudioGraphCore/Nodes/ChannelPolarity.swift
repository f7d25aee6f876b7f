/// The polarity of each channel of a down-mix to mono against the first, and the mix that
/// follows it: a channel that is the first's negative is added with its sign turned.
///
/// Some laptops' stereo microphones give one channel inverted (a codec or wiring fault ALSA
/// and PulseAudio leave to applications): their mean cancels, and the mono signal is near
/// silence, with the low frequencies of speech gone. Every `window` frames of sound (above
/// -60 dBFS in both channels) each channel's correlation with the first is measured; two
/// windows in a row below -0.5 turn that channel's sign, two above +0.5 turn it back.
/// Uncorrelated channels (two talkers, noise) keep their sign. The decision falls on window
/// boundaries counted in frames, so it is the same whatever the block sizes.
/// Real-time safe: no allocation after `init`.
package final class ChannelPolarity {
    /// A channel's sign turned (or turned back) at `frame`, with the correlation measured.
    package struct Change {
        package var channel: Int
        package var inverted: Bool
        package var correlation: Float
        package var frame: Int64
    }

    package let channels: Int
    package let window: Int
    private let sign: UnsafeMutablePointer<Float>
    private let cross: UnsafeMutablePointer<Double>
    private let energy: UnsafeMutablePointer<Double>
    private let strikes: UnsafeMutablePointer<Int>
    private var framesInWindow = 0
    private var frame: Int64 = 0
    /// Mean power per sample below which a window says nothing (-60 dBFS).
    static let quiet = 1e-6
    /// |correlation| past which a window counts for a sign.
    static let threshold = 0.5

    /// For `channels` channels (2 or more), deciding every `window` frames.
    package init(channels: Int, window: Int) {
        self.channels = channels
        self.window = max(1, window)
        sign = .allocate(capacity: channels)
        cross = .allocate(capacity: channels)
        energy = .allocate(capacity: channels)
        strikes = .allocate(capacity: channels)
        reset()
    }

    deinit {
        sign.deallocate()
        cross.deallocate()
        energy.deallocate()
        strikes.deallocate()
    }

    package func reset() {
        sign.update(repeating: 1, count: channels)
        cross.update(repeating: 0, count: channels)
        energy.update(repeating: 0, count: channels)
        strikes.update(repeating: 0, count: channels)
        framesInWindow = 0
        frame = 0
    }

    /// Writes the mean of `input`'s channels from frame `offset`, each with its sign, to
    /// `dst[0..<n]`; calls `changed` for each sign turned at a window's end.
    package func mix(_ input: AudioBuffer, from offset: Int = 0, into dst: UnsafeMutablePointer<Float>, count n: Int,
                     changed: (Change) -> Void) {
        var done = 0
        let scale = 1 / Float(channels)
        while done < n {
            let m = min(n - done, window - framesInWindow)
            let first = input.channel(0) + offset + done, out = dst + done
            var e0 = 0.0
            for i in 0..<m {
                out[i] = first[i]
                e0 += Double(first[i] * first[i])
            }
            energy[0] += e0
            for c in 1..<channels {
                let x = input.channel(c) + offset + done, s = sign[c]
                var xy = 0.0, e = 0.0
                for i in 0..<m {
                    let v = x[i]
                    xy += Double(first[i] * v)
                    e += Double(v * v)
                    out[i] += s * v
                }
                cross[c] += xy
                energy[c] += e
            }
            for i in 0..<m { out[i] *= scale }
            done += m
            framesInWindow += m
            frame += Int64(m)
            if framesInWindow == window { decide(changed) }
        }
    }

    /// A window's end: each channel's correlation with the first, and its sign.
    private func decide(_ changed: (Change) -> Void) {
        let floor = Self.quiet * Double(window)
        for c in 1..<channels where energy[0] > floor && energy[c] > floor {
            let r = cross[c] / (energy[0] * energy[c]).squareRoot()
            let wantsInverted = r < -Self.threshold, wantsKept = r > Self.threshold
            let isInverted = sign[c] < 0
            if (wantsInverted && !isInverted) || (wantsKept && isInverted) {
                strikes[c] += 1
                if strikes[c] >= 2 {
                    sign[c] = -sign[c]
                    strikes[c] = 0
                    changed(Change(channel: c, inverted: sign[c] < 0, correlation: Float(r), frame: frame))
                }
            } else {
                strikes[c] = 0
            }
        }
        cross.update(repeating: 0, count: channels)
        energy.update(repeating: 0, count: channels)
        framesInWindow = 0
    }
}
