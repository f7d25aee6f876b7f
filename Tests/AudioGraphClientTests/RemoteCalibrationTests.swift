import AudioGraphClient
import AudioGraphTestSupport
import Foundation
import Testing

/// The Swift client's `sessionCalibration` reaches the server's recognizer: a session's later
/// finals move with its own earlier words, and without the option they keep the model's.
@Suite(.serialized) struct RemoteCalibrationTests {
    /// The finals of one session on a server of its own: two sessions one after the other on
    /// one server give first finals whose confidences differ by up to 0.01 (a kept decoder
    /// started over scores a stream's first utterance a little differently from a fresh one;
    /// `PocketSphinxDecoder.startOver` says where).
    func finals(_ audio: [Float], calibrated: Bool?) async throws -> [RemoteResult] {
        let server = try RemoteSessionTests.Server()
        defer { server.kill() }
        let session = RemoteRecognitionSession(server.endpoint, options: .init(graph: "dictation", sessionCalibration: calibrated))
        try await session.start()
        for at in stride(from: 0, to: audio.count, by: 3200) {
            try await session.append(Array(audio[at..<min(audio.count, at + 3200)]))
        }
        try await session.stop()
        var out: [RemoteResult] = []
        for try await e in session.events { if case .final(let r) = e { out.append(r) } }
        return out
    }

    @Test(.enabled(if: RemoteSessionTests.hasFlite, "flite or sox is not installed"))
    func sessionCalibrationMovesLaterFinals() async throws {
        var audio: [Float] = []
        for text in ["go forward ten meters", "find japanese restaurants nearby", "turn left at the corner"] {
            audio += try RemoteSessionTests.samples(text) + [Float](repeating: 0, count: 32000)
        }
        let on = try await finals(audio, calibrated: true)
        let off = try await finals(audio, calibrated: nil)
        try #require(on.count == 3 && off.count == 3, "\(on.map(\.text)) \(off.map(\.text))")
        #expect(on.map(\.text) == off.map(\.text))
        #expect(on[0].words.map(\.confidence) == off[0].words.map(\.confidence))
        #expect(on[1].words.map(\.confidence) != off[1].words.map(\.confidence))
        #expect(on[2].words.map(\.confidence) != off[2].words.map(\.confidence))
    }
}
