import AudioGraphClient
import AudioGraphCore
import AudioGraphSpeech
import Foundation

/// `remote-synth`: a `speech-synth` whose voice is an `audiograph serve`'s (SpeechKit's
/// `SKVocalizer`): the same parameters, ports and events (speak-start/-end, earcons, replies
/// to a recognizer's `results`, the `playing` gate), the text sent to the server and its
/// audio played here. Earcons are made on the device. A server that is not there, or a voice
/// it does not have, fails at start with one line; a server lost mid-run ends the run with
/// an error naming it.
public enum RemoteSynth {
    /// The `remote-synth` node type.
    public static let descriptor = NodeDescriptor(
        type: "remote-synth",
        summary: "Speech from an audiograph serve (ws://HOST:PORT): speech-synth's texts, replies, earcons and events, the voice on a server.",
        role: .source,
        parameters: RemoteServer.parameters(timeout: "to connect") + [
            ParameterSpec("voice", .string, default: "rms", help: "the server's voice (flite's: rms, slt, awb, kal16, kal)"),
        ] + SpeechSynth.descriptor.parameters.filter { $0.name != "voice" },
        controls: SpeechSynth.descriptor.controls,
        make: { p throws(GraphError) in
            let server = try RemoteServer(p)
            let voice = p.text("voice"), rate = p.number("rate")
            return try SpeechSynth(p) { () throws(EngineError) in try RemoteVoice.open(server, voice: voice, rate: rate) }
        })
}

/// A server's voice: each text a `speak` on one connection, waited for on the speech worker's
/// thread.
final class RemoteVoice: SpeechVoice {
    let sampleRate: Int
    private let vocalizer: RemoteVocalizer
    private let server: RemoteServer
    private let voice: String
    private let rate: Double

    private init(_ vocalizer: RemoteVocalizer, server: RemoteServer, voice: String, rate: Double, sampleRate: Int) {
        self.vocalizer = vocalizer
        self.server = server
        self.voice = voice
        self.rate = rate
        self.sampleRate = sampleRate
    }

    deinit { vocalizer.close() }

    /// Connects and speaks a probe, which says the voice's rate (the node's format) and that
    /// the server has the voice (control thread, before the run).
    static func open(_ server: RemoteServer, voice: String, rate: Double) throws(EngineError) -> RemoteVoice {
        let vocalizer = RemoteVocalizer(server.endpoint)
        do {
            let probe = try blocking { try await vocalizer.speak("a", voice: voice, rate: rate) }
            return RemoteVoice(vocalizer, server: server, voice: voice, rate: rate, sampleRate: probe.sampleRate)
        } catch {
            vocalizer.close()
            throw server.refusal(error)
        }
    }

    func synthesize(_ text: String) throws(EngineError) -> [Float] {
        do {
            let (vocalizer, voice, rate) = (self.vocalizer, self.voice, self.rate)
            let speech = try blocking { try await vocalizer.speak(text, voice: voice, rate: rate) }
            return speech.samples
        } catch {
            throw server.failure(error)
        }
    }
}
