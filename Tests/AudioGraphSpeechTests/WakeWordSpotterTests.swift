@testable import AudioGraphCore
@testable import AudioGraphSpeech
import AudioGraphTestSupport
import Foundation
import Testing

/// The wake-word spotter on its own: the real key-phrase search and model, flite's voice.
@Suite(.enabled(if: SpeechModel.isDefaultInstalled, "Debian's pocketsphinx-en-us is not installed"))
struct WakeWordSpotterTests {
    /// Seconds of a bit of dither (what a digital path such as PulseAudio's monitor of a
    /// sink gives between sounds, about -96 dBFS) between wake words: every wake word is
    /// heard. Before, the search's cepstral mean learnt the dither as the room and sank, and
    /// half of the wake words after a long pause went unheard (the calm exchanges of
    /// `Tools/bench echo`'s drift-free room).
    @Test(.flite) func everyWakeWordIsHeardBetweenSecondsOfDither() throws {
        let wake = try #require(try Flite.samples16("hello computer")).map { Float($0) / 32768 }
        let dictionary = try PocketSphinxDecoder(
            hmm: SpeechModel.defaultHMM, dict: SpeechModel.defaultDict, search: .keyphrase("hello computer", threshold: 1e-20),
            limits: .init(hmms: 30000, wordExits: 20), dropsSilence: false)
        let spotter = try WakeWordSpotter(phrase: "hello computer", threshold: 1e-20, hmm: SpeechModel.defaultHMM,
                                          dictionary: dictionary)
        var seed: UInt32 = 7
        let dither = (0..<16000 * 8).map { _ -> Float in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let r = seed >> 16
            return r % 100 < 56 ? (r & 1 == 0 ? 1 : -1) / 32768 : 0
        }
        var heard = 0
        let spoken = 8
        for _ in 0..<spoken {
            for part in [wake, dither] {
                var found = false
                part.withUnsafeBufferPointer { p in
                    var k = 0
                    while k < p.count {  // blocks of 1024, as a graph delivers them
                        let n = min(1024, p.count - k)
                        found = spotter.take(p.baseAddress! + k, n) || found
                        k += n
                    }
                }
                heard += found ? 1 : 0
            }
        }
        #expect(heard == spoken, "\(heard) of \(spoken) wake words heard")
    }
}
