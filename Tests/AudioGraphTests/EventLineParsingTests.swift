import AudioGraphCore
import Testing

@testable import AudioGraph

/// `EngineEvent(jsonLine:)`, how a server reads the events of a session in a process of its
/// own (`serve --isolate`): every event's line reads back as an event with the same line.
@Suite struct EventLineParsingTests {
    static let events: [EngineEvent] = [
        .state(.listening),
        .device(node: "mic", name: "pipe", format: StreamFormat(sampleRate: 48000, channelCount: 2), latency: 0.02),
        .level(node: "vad", t: 1.5, rms: -30.25, peak: -6.5),
        .speechStart(node: "vad", t: 0.48, decided: 0.62),
        .speechEnd(node: "vad", t: 2.1, decided: 2.4),
        .probability(node: "vad", t: 0.5, p: 0.875),
        .utteranceEnd(node: "eos", utterance: 2, t: 2.1, decided: 2.9),
        .partial(node: "asr", utterance: 1, text: "go \"for\"\nward"),
        .final(node: "asr", result: RecognitionResult(
            utterance: 1, text: "go forward", start: 0.4, end: 1.9, confidence: 0.81,
            alternatives: [.init(text: "go forward", score: 0), .init(text: "go for word", score: -120)],
            words: [.init(word: "go", start: 0.4, end: 0.7, confidence: 0.9), .init(word: "forward", start: 0.7, end: 1.9, confidence: 0.7)])),
        .warning(node: nil, message: "a warning"),
        .warning(node: "asr", message: "another"),
        .speakStart(node: "tts", id: 3, text: "hello", t: 4),
        .speakEnd(node: "tts", id: 3, t: 5.25, cancelled: true),
        .wake(node: "asr", phrase: "hello computer", t: 1),
        .assistant(node: "asr", state: .listening, reason: nil, t: 1.1),
        .assistant(node: "asr", state: .waitingForWakeWord, reason: .understood, t: 3),
        .assistant(node: "asr", state: .waitingForWakeWord, reason: .lost, t: 4.5),
        .bargeIn(node: "tts", t: 2.5),
        .earcon(node: "tone", name: "listening", t: 1.2),
        .conversation("aec", .echoDelay(delay: 0.3125, t: 2.5)),
        .conversation("aec", .echoHeld(below: 21.5, t: 3.25)),
        .overrun(node: "asr", lost: 281),
        .underrun(node: "out", count: 2, frames: 960),
        .error(EngineError(.recognizer, "the session's process ended (killed by signal 11)")),
        .end(.endOfSpeech, suggestion: nil),
        .end(.noSpeech, suggestion: "speak louder"),
    ]

    @Test(arguments: events.indices) func everyEventLineReadsBackToTheSameLine(_ i: Int) throws {
        let line = Self.events[i].jsonLine
        let back = try #require(EngineEvent(jsonLine: line), "\(line)")
        #expect(back.jsonLine == line)
    }

    @Test func whatIsNotAnEventLineIsNil() {
        for line in ["", "{", "[]", #"{"type":"nonsense"}"#, #"{"type":"end","reason":"bored"}"#, ##"{"type":"#heard"}"##, #"{"text":"x"}"#] {
            #expect(EngineEvent(jsonLine: line) == nil, "\(line)")
        }
    }
}
