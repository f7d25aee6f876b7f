@testable import AudioGraphCore
@testable import AudioGraphSpeech
import AudioGraphTestSupport
import Foundation
import Testing

/// An utterance decoded in parts: a part closes in the silence after a `speech-end`, and the
/// next opens where speech resumes. Where speech resumes decides what is recognised, not when
/// the vad was sure of it. The real decoder and model.
@Suite(.enabled(if: SpeechModel.isDefaultInstalled, "Debian's pocketsphinx-en-us is not installed"))
struct PartBoundaryTests {
    static let rate = 16000.0

    /// A flite sentence said twice with `gap` seconds of faint noise between the two sayings'
    /// loud samples
    /// (0.6 s before, 1.5 s after); where each saying starts and ends.
    static func twice(gap: Double) throws -> (samples: [Float], onsets: [Double], ends: [Double])? {
        guard SpeechModel.isDefaultInstalled, let wav = Flite.speech("go forward ten meters") else { return nil }
        let voice = try WAVFile.monoSamples(path: wav.path)
        try #require(voice.rate == Int(rate))
        // Trimmed to 50 ms either side of its loud samples.
        let loud = voice.samples.indices.filter { abs(voice.samples[$0]) > 0.02 }
        let margin = Int(0.05 * rate)
        let v = Array(voice.samples[max(0, (loud.first ?? 0) - margin)..<min(voice.samples.count, (loud.last ?? 0) + margin)])
        let first = v.firstIndex { abs($0) > 0.02 } ?? 0, last = v.lastIndex { abs($0) > 0.02 } ?? v.count
        var x = Signals.noise(rms: 0.0005, seconds: 0.6, rate: rate)
        let edges = Double(first + v.count - last) / rate
        var onsets: [Double] = [], ends: [Double] = []
        for (i, after) in [gap, 1.5].enumerated() {
            onsets.append(Double(x.count + first) / rate)
            ends.append(Double(x.count + last) / rate)
            x += v + Signals.noise(rms: 0.0005, seconds: max(0, after - edges), rate: rate, seed: UInt64(7 + i))
        }
        return (x, onsets, ends)
    }

    /// The second saying begins 0.3 s after the first ends, within the part's trailing
    /// silence. A hint of possible speech comes at its onset; the onset is confirmed before
    /// the part would close, or after. Before, a late confirmation found the part closed,
    /// with the second saying's first sounds in it.
    @Test(.flite) func speechThatMayBeStartingKeepsThePartOpen() throws {
        let (x, onsets, ends) = try #require(try Self.twice(gap: 0.3))
        let o = onsets[1]
        func markers(confirmedAt: Double) -> [StreamMarker] {
            [StreamMarker(.speechStart, t: onsets[0], decided: onsets[0] + 0.3),
             StreamMarker(.speechEnd, t: ends[0], decided: ends[0] + 0.15),
             StreamMarker(.speechPossible, t: o, decided: o + 0.02, resolvesBy: o + 0.4),
             StreamMarker(.speechStart, t: o, decided: confirmedAt),
             StreamMarker(.speechEnd, t: ends[1], decided: ends[1] + 0.15),
             StreamMarker(.utteranceEnd, t: ends[1], decided: ends[1] + 0.8, utterance: 1)]
        }
        // The part would close 0.4 s after the speech end was decided: at about o + 0.25.
        let closes = ends[0] + 0.15 + UtteranceDecoder.Tuning.trailingSeconds
        let early = o + 0.1, late = o + 0.35
        try #require(early < closes && late > closes)
        let decode = SpeculativeStartTests()
        let a = decode.finals(try decode.decode(x, markers(confirmedAt: early)))
        let b = decode.finals(try decode.decode(x, markers(confirmedAt: late)))
        try #require(a.count == 1 && b.count == 1)
        #expect(a[0].text.components(separatedBy: "forward").count == 3, "\(a[0].text)")
        #expect(b[0].text == a[0].text, "confirmed late: \(b[0].text); early: \(a[0].text)")
        // Closed at its usual point, the part took the start of the second "forward", whose
        // time then came 50 ms late.
        #expect(b[0].words.map(\.word) == a[0].words.map(\.word))
        for (v, w) in zip(b[0].words, a[0].words) {
            #expect(abs(v.start - w.start) < 0.02 && abs(v.end - w.end) < 0.02, "confirmed late: \(v); early: \(w)")
        }
    }

    /// A final decoded in two parts gives every word the voicing of the whole result (the
    /// louder half of all its words' frames), not the typical value its parts were scored
    /// with, and its confidences come from it.
    @Test(.flite) func aFinalInPartsReadsTheWholeResultsVoicing() throws {
        let (x, onsets, ends) = try #require(try Self.twice(gap: 1.0))
        let markers = [StreamMarker(.speechStart, t: onsets[0], decided: onsets[0] + 0.3),
                       StreamMarker(.speechEnd, t: ends[0], decided: ends[0] + 0.15),
                       StreamMarker(.speechStart, t: onsets[1], decided: onsets[1] + 0.3),
                       StreamMarker(.speechEnd, t: ends[1], decided: ends[1] + 0.15),
                       StreamMarker(.utteranceEnd, t: ends[1], decided: ends[1] + 0.8, utterance: 1)]
        let decode = SpeculativeStartTests()
        let finals = decode.finals(try decode.decode(x, markers))
        try #require(finals.count == 1)
        let words = finals[0].words
        try #require(words.count >= 4 && words.contains { $0.start > onsets[1] - 0.1 }, "\(finals[0].text)")
        let voicing = words.compactMap { $0.evidence?.features[ConfidenceModel.resultVoicingInput] }
        try #require(voicing.count == words.count)
        // One value for the whole result, measured: flite's voice is voiced.
        #expect(Set(voicing).count == 1)
        #expect(voicing[0] > 0.8 && voicing[0] != ConfidenceModel.typicalVoicing, "\(voicing[0])")
        for w in words { #expect(w.confidence == ConfidenceModel.probability(w.evidence!)) }
        #expect(finals[0].confidence == RecognitionResult.meanConfidence(words))
    }
}
