@testable import AudioGraphSpeech
import Testing

/// What flite is given for the texts apps and programs write: typographic quotes, accents,
/// dashes and signs come out as the English flite says right.
@Suite struct SpeakableTextTests {
    @Test(arguments: [
        ("It’s 20 °C in Zürich — isn’t it?", "It's 20 degrees Celsius in Zurich, isn't it?"),
        ("“Hello,” she said…", "\"Hello,\" she said..."),
        ("pages 2–3, €5 or £3.50", "pages 2 to 3, 5 euros or 3.50 pounds"),
        ("naïve façade, Straße, Ørsted, œuvre", "naive facade, Strasse, Orsted, oeuvre"),
        ("5 × 3 at 70 °F", "5 times 3 at 70 degrees Fahrenheit"),
        ("café ☕ 日本語 now", "cafe now"),
    ])
    func typedTextBecomesWhatFliteSays(_ text: String, _ said: String) {
        #expect(FliteVoice.speakable(text) == said)
    }
}
