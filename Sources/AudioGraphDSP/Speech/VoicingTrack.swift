import Foundation

/// How voiced a 16 kHz stream is, per 10 ms frame, over its last `seconds`: the peak of the
/// frame's normalised autocorrelation at pitch lags (70-400 Hz) beside its level.
///
/// A recognizer's word confidence reads it (`ConfidenceModel`): PocketSphinx's model was
/// trained on modal read speech, and words it recognises in whispered, creaky or breathy
/// speech, where this falls, are wrong more often than its own scores say (docs/confidences.md).
///
/// Frame `k` is the 32 ms window starting at stream sample `160 k`; a frame's value is ready
/// once its window is complete. Not real-time code (the recognizer's decoding thread feeds
/// it) but allocation-free per block: everything is allocated at `init`.
package final class VoicingTrack {
    /// Samples per frame step (10 ms at 16 kHz, PocketSphinx's frame rate).
    package static let hop = 160
    /// Analysis window (32 ms: two periods of a 70 Hz voice).
    static let window = 512

    private let analyser: FrameVoicing
    /// The last `window` samples, in a ring.
    private var recent: [Float]
    /// Per frame, in a ring of `capacity`: voicing 0...1 and level in dB.
    private var voicing: [Float]
    private var level: [Float]
    private let capacity: Int
    /// Samples taken in since the start.
    private var samples: Int64 = 0

    /// A track remembering the last `seconds` of frames; nil when FFTW cannot plan.
    package init?(seconds: Double) {
        guard let analyser = FrameVoicing(length: Self.window, rate: 16000) else { return nil }
        self.analyser = analyser
        let n = Self.window
        recent = [Float](repeating: 0, count: n)
        capacity = max(1, Int(seconds * 16000) / Self.hop)
        voicing = [Float](repeating: 0, count: capacity)
        level = [Float](repeating: -120, count: capacity)
    }

    /// Takes the stream's next `count` samples.
    package func append(_ x: UnsafePointer<Int16>, count: Int) {
        let n = Int64(Self.window)
        for i in 0..<count {
            recent[Int(samples % n)] = Float(x[i]) / 32768
            samples += 1
            // The frame whose window this sample completes.
            let start = samples - n
            if start >= 0 && start % Int64(Self.hop) == 0 { analyse(frame: start / Int64(Self.hop)) }
        }
    }

    /// Forgets everything: the next sample is the stream's first.
    package func reset() {
        samples = 0
        for i in recent.indices { recent[i] = 0 }
    }

    /// The mean voicing of the louder half of the frames within `spans` (stream seconds), or
    /// nil when none of them is still held. The louder half: a word's quiet edges and the
    /// gaps between words say little about the voice.
    package func loudHalfVoicing(_ spans: [(start: Double, end: Double)]) -> Double? {
        let complete = samples >= Int64(Self.window) ? (samples - Int64(Self.window)) / Int64(Self.hop) : -1
        let oldest = max(0, complete - Int64(capacity) + 1)
        var frames: [(v: Float, l: Float)] = []
        for s in spans {
            // The frames starting within the span, at least its first.
            let first = Int64((s.start * 100).rounded(.down))
            let a = max(oldest, first), b = min(complete, max(first + 1, Int64((s.end * 100).rounded(.down))) - 1)
            guard a <= b else { continue }
            for k in a...b { let j = Int(k % Int64(capacity)); frames.append((voicing[j], level[j])) }
        }
        guard !frames.isEmpty else { return nil }
        let median = frames.map(\.l).sorted()[frames.count / 2]
        let loud = frames.filter { $0.l >= median }
        return Double(loud.reduce(0) { $0 + $1.v }) / Double(loud.count)
    }

    private func analyse(frame k: Int64) {
        let n = Self.window
        let first = Int(samples % Int64(n))  // the oldest sample in the ring
        let m = recent.withUnsafeBufferPointer { r in analyser.measure { r[(first + $0) % n] } }
        let j = Int(k % Int64(capacity))
        voicing[j] = m.voicing
        level[j] = m.level
    }
}
