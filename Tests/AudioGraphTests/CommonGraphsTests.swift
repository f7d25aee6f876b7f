import AudioGraphTestSupport
import Foundation
import Testing

@testable import AudioGraph

/// The one-call cases of the DocC catalogue (RecognitionSessions.md), as written there, and
/// their graphs against the bundled graph files they stand for.
@Suite struct CommonGraphsTests {
    /// The repository's Graphs/ folder (tests run from anywhere).
    static let graphs = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Graphs")

    /// Node ids, types and parameters of a validated graph (paths left out: they differ).
    func shape(_ g: GraphDescription) throws -> [String] {
        let v = try GraphValidator.validate(g, registry: .builtin).get()
        return v.nodes.map { n in
            let params = n.descriptor.parameters.map(\.name).filter { $0 != "path" && $0 != "grammar" }
                .map { "\($0)=\(n.parameters[$0].map { "\($0)" } ?? "-")" }
            return "\(n.id):\(n.descriptor.type) " + params.joined(separator: " ")
        } + v.edges.map { "\($0.from)->\($0.to)" }
    }

    @Test func theBuiltGraphsAreTheBundledOnes() throws {
        func file(_ name: String) throws -> GraphDescription {
            try GraphFile.load(Self.graphs.appendingPathComponent(name).path)
        }
        #expect(try shape(.transcription(of: "x.wav")) == shape(file("transcribe.json")))
        #expect(try shape(.dictation()) == shape(file("dictation.json")))
        #expect(try shape(.command(grammar: "x.gram")) == shape(file("command.json")))
    }

    @Test(.flite) func transcribeAFileInOneCall() async throws {
        let wav = try #require(Flite.speech(["go forward ten meters", "find japanese restaurants nearby"], pause: 1.5))
        let finals = try await RecognitionSession.transcribe(file: wav.path)
        #expect(finals.count == 2 && finals[0].text.contains("forward ten meters")
                && finals[1].text.contains("japanese restaurants"), "\(finals.map(\.text))")
        #expect(finals.allSatisfy { !$0.words.isEmpty && $0.confidence > 0 })
    }

    @Test func aFileThatIsNotThereIsAnError() async throws {
        await #expect(throws: EngineError.self) { try await RecognitionSession.transcribe(file: "/nonexistent.wav") }
    }

    @Test(.flite) func oneCommandAgainstTheGrammar() async throws {
        let wav = try #require(Flite.speech("find japanese restaurants nearby"))
        let grammar = Self.graphs.appendingPathComponent("command.gram").path
        let session = try RecognitionSession(graph: .command(grammar: grammar, source: wav.path))
        let events = session.events
        try session.start()
        var finals: [String] = []
        for await e in events { if case .final(_, let r) = e { finals.append(r.text) } }
        #expect(finals == ["find japanese restaurants nearby"])
    }
}
