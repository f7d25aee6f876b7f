import AudioGraphTestSupport
import Foundation
import Testing

/// Speech that was once at 8 kHz (a telephone recording, a Bluetooth headset's headset
/// profile) lacks everything above 4 kHz, whatever it is resampled to: the recognizer says so.
@Suite struct NarrowbandInputTests {
    @Test(.flite) func aRecognizerWhoseInputWasOnce8kHzSaysSo() throws {
        let speech = try #require(Flite.speech("go forward ten meters, then turn left and find the kitchen"))
        let wide = try #require(Flite.convert(speech, rate: 16000, channels: 1))
        let narrow = try #require(Flite.convert(speech, rate: 8000, channels: 1))
        // Resampled back to 48 kHz: the band is still 4 kHz.
        let resampled = try #require(Flite.convert(narrow, rate: 48000, channels: 1))
        for (file, warned) in [(wide, false), (narrow, true), (resampled, true)] {
            let r = try CLI.run(["run", "transcribe", "--source", file.path])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("its input holds nothing above 4 kHz") == warned,
                    "\(file.lastPathComponent): \(r.stderr)")
        }
    }
}
