import AudioGraphTestSupport
import Foundation
import Testing

@testable import AudioGraph

/// A `stream-source` fed from another thread, as a server connection feeds it: the graph
/// waits for the audio however it comes, and delivers everything pushed before the end.
@Suite struct StreamSourceTests {
    /// The PCM of a canonical WAV file (its `data` chunk).
    static func pcm(_ url: URL) throws -> Data {
        let d = try Data(contentsOf: url)
        var i = 12
        while i + 8 <= d.count {
            let id = String(decoding: d[i..<i + 4], as: UTF8.self)
            let size = Int(d[i + 4]) | Int(d[i + 5]) << 8 | Int(d[i + 6]) << 16 | Int(d[i + 7]) << 24
            if id == "data" { return d[(i + 8)..<min(d.count, i + 8 + size)] }
            i += 8 + size + size % 2
        }
        throw EngineError(.audioFile, "no data chunk")
    }

    /// Pushes `pcm` in chunks of `chunk` bytes with `pause` s between them, then ends the audio.
    static func feed(_ source: StreamSource, _ pcm: Data, chunk: Int, pause: Double) {
        let thread = Thread {
            var at = pcm.startIndex
            while at < pcm.endIndex {
                let end = min(pcm.endIndex, at + chunk)
                _ = pcm[at..<end].withUnsafeBytes { source.append(pcm: $0, width: 2) }
                at = end
                if pause > 0 { Thread.sleep(forTimeInterval: pause) }
            }
            source.endAudio()
        }
        thread.start()
    }

    func session(rate: Int, channels: Int = 1) throws -> (RecognitionSession, StreamSource) {
        var g = GraphDescription.dictation()
        let id = try GraphEdits.stream(rate: rate, channels: channels, in: &g, registry: .builtin)
        let session = try RecognitionSession(graph: g)
        let source = try #require(session.engine.node(id) as? StreamSource)
        return (session, source)
    }

    @Test(.flite, arguments: [(16000, 0.0), (16000, 0.02), (44100, 0.0)])
    func speechPushedFromAnotherThreadIsRecognised(rate: Int, pause: Double) async throws {
        let wav = try #require(Flite.speech(["go forward ten meters", "find japanese restaurants nearby"], pause: 1.2))
        let converted = try #require(Flite.convert(wav, rate: rate, channels: 1))
        let (session, source) = try self.session(rate: rate)
        let events = session.events
        try session.start()
        // Chunks of 0.1 s, paced (a client streaming in real time or faster) or all at once.
        Self.feed(source, try Self.pcm(converted), chunk: rate / 5, pause: pause)
        var finals: [String] = []
        var end: EndReason?
        for await e in events {
            if case .final(_, let r) = e { finals.append(r.text) }
            if case .end(let r, _) = e { end = r }
        }
        #expect(end == .endOfInput)
        #expect(finals.count == 2 && finals[0].contains("forward ten meters") && finals[1].contains("japanese restaurants"),
                "\(finals)")
    }

    /// PCM is a stream of bytes: messages cut anywhere, mid-sample and mid-frame, give the
    /// same audio exactly. Before, a message's trailing partial frame was dropped and every
    /// later frame shifted: a Wyoming client's chunks of 1,001 bytes were recognised as "up".
    @Test(arguments: [1, 3, 1001, 7777, 80000])
    func pcmCutAnywhereArrivesWhole(chunk: Int) async throws {
        let frames = 20000
        let samples = (0..<frames * 2).map { Int16(truncatingIfNeeded: $0 &* 2654435761 >> 9) }
        let pcm = samples.withUnsafeBufferPointer { Data(buffer: $0) }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: out) }
        var g = GraphDescription(name: "bytes")
        g.addNode("src", type: "stream-source", ["rate": 16000, "channels": 2])
        g.addNode("out", type: "wav-sink", ["path": .string(out.path)])
        g.connect("src", to: "out")
        let engine = try AudioEngine(graph: g, registry: .builtin)
        try engine.prepare()
        let source = try #require(engine.node("src") as? StreamSource)
        try engine.start()
        Self.feed(source, pcm, chunk: chunk, pause: 0)
        #expect(await engine.ended() == .endOfInput)
        let written = try Data(contentsOf: out)
        #expect(written.count == 44 + pcm.count)
        #expect(written.dropFirst(44) == pcm, "every byte in its place")
    }

    @Test(.flite) func stopDeliversWhatWasPushedAndCancelEndsAWaitingGraph() async throws {
        let wav = try #require(Flite.speech("find japanese restaurants nearby"))
        let (session, source) = try self.session(rate: 16000)
        let events = session.events
        try session.start()
        // Everything pushed, the audio not ended: the graph waits for more, then stop() delivers.
        _ = try Self.pcm(try #require(Flite.convert(wav, rate: 16000, channels: 1))).withUnsafeBytes { source.append(pcm: $0, width: 2) }
        let _ = try await Task.sleep(for: .milliseconds(300))
        try session.stop()
        var finals: [String] = []
        for await e in events { if case .final(_, let r) = e { finals.append(r.text) } }
        #expect(finals.joined(separator: " ").contains("japanese restaurants"), "\(finals)")

        let (waiting, _) = try self.session(rate: 16000)
        try waiting.start()
        try waiting.cancel()
        #expect(await waiting.ended() == .cancelled)
    }
}
