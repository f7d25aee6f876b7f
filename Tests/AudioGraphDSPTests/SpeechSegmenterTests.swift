import Testing

@testable import AudioGraphDSP

/// The segmenter alone, fed evidence frame by frame.
@Suite struct SpeechSegmenterTests {
    /// Runs `evidence` (one value per 10 ms frame) through a segmenter at sensitivity 0.5;
    /// the starts and ends it decides, in order.
    func decisions(_ evidence: [Float]) -> [(kind: String, t: Double)] {
        var s = SpeechSegmenter(sensitivity: 0.5, minSpeechFrames: 5, hangoverFrames: 20, frameSeconds: 0.025)
        var out: [(kind: String, t: Double)] = []
        for (i, e) in evidence.enumerated() {
            let frame = Int64(i + 1)
            _ = s.score(e)
            s.decide(frame: frame, evidence: e, signal: e, high: 0, voiced: true, plainVoiced: true, clear: false,
                     now: s.frameEnd(frame)) { d in
                switch d {
                case .start(let t, _): out.append(("start", t))
                case .end(let t, _): out.append(("end", t))
                default: break
                }
            }
        }
        return out
    }

    /// A strong word, a pause, then a weak one (over the start threshold, never over the
    /// tail's): the weak one's end is after its start, not the strong word's end again.
    @Test func aWeakSegmentAfterAStrongOneEndsAfterItStarts() {
        let strong = [Float](repeating: 2, count: 40), quiet = [Float](repeating: 0, count: 60)
        let weak = [Float](repeating: 1.0, count: 30)
        let d = decisions(quiet + strong + quiet + weak + quiet)
        #expect(d.map(\.kind) == ["start", "end", "start", "end"], "\(d)")
        if d.count == 4 { #expect(d[3].t > d[2].t, "\(d)") }
    }
}
