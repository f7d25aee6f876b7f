import AudioGraphCore
import AudioGraphTestSupport
import Foundation
import Testing

/// A stereo recording whose right channel is the left's negative, as some laptops' built-in
/// microphones give it: mixed to mono for the vad and the recognizer, the plain mean was
/// digital silence and nothing was heard, without a word. Now the channel is turned and a
/// warning names it.
@Suite struct InvertedMicrophoneTests {
    @Test(.flite) func anInvertedChannelIsHeardAndNamed() throws {
        let wav = try #require(Flite.speech("turn on the kitchen light please"))
        let speech = try WAVFile.monoSamples(path: wav.path)
        let pad = [Float](repeating: 0, count: 8000)
        let x = pad + speech.samples + pad
        var interleaved: [Int32] = []
        for v in x {
            let s = Int32(max(-32768, min(32767, (v * 32768).rounded())))
            interleaved += [s, -s]
        }
        let stereo = CLI.tempDir().appendingPathComponent("inverted.wav")
        try WAVFixture.write(stereo, rate: Int(speech.rate), channels: 2, bits: 16, samples: interleaved)
        let r = try CLI.run(["run", "Graphs/transcribe.json", "--source", stereo.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let finals = r.stdoutLines.filter { $0.contains(#""type":"final""#) }
        #expect(finals.count == 1 && finals.first?.contains("kitchen") == true, "\(r.stdout)")
        let warnings = r.stdoutLines.filter { $0.contains(#""type":"warning""#) }
        #expect(warnings.count == 1 && warnings.first?.contains("channel 2 is channel 1 inverted") == true, "\(warnings)")
    }
}
