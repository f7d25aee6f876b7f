@testable import AudioGraphCore
@testable import AudioGraphSpeech
import Foundation
import Testing

/// A voice that holds each text until the test lets it go (a double for the worker's logic).
private final class HeldVoice: SpeechVoice, @unchecked Sendable {
    let sampleRate = 16000
    let started = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    func synthesize(_ text: String) throws(EngineError) -> [Float] {
        started.signal()
        go.wait()
        return [Float](repeating: 0.1, count: 1600)
    }
}

@Suite struct SpeechWorkerTests {
    /// A text cancelled while the voice synthesises it is dropped and leaves nothing pending:
    /// before, it stayed counted (cancelAll no longer found it among the requests) and the
    /// synth never went idle again, so an assistant stopped answering.
    @Test func aTextCancelledWhileSynthesisedLeavesNothingPending() {
        let voice = HeldVoice()
        let worker = SpeechWorker(voice: voice, capacity: 4)
        worker.start()
        defer { worker.close() }
        #expect(worker.submit(id: 1, text: "the kitchen light is on"))
        voice.started.wait()
        #expect(worker.cancelAll().isEmpty, "the text being synthesised is not among the requests")
        voice.go.signal()
        let deadline = Date().addingTimeInterval(5)
        while worker.pending.load(ordering: .acquiring) != 0 && Date() < deadline { usleep(1000) }
        #expect(worker.pending.load(ordering: .acquiring) == 0)
        #expect(worker.segments.count == 0, "a cancelled text is not announced")
        // The next text is spoken.
        #expect(worker.submit(id: 2, text: "okay"))
        voice.started.wait()
        voice.go.signal()
        while worker.segments.count == 0 && Date() < deadline { usleep(1000) }
        #expect(worker.segments.pop()?.id == 2)
        #expect(worker.pending.load(ordering: .acquiring) == 0)
    }
}
