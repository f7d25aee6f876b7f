import AudioGraph
import AudioGraphClient
import AudioGraphCore
import AudioGraphSpeech
import Foundation
import Synchronization

/// One Wyoming client, on a thread of its own (the `wyoming` package's per-connection
/// `AsyncEventHandler`): describe/info, ping, transcription (`transcribe` then audio, with
/// the streaming `transcript-*` events), wake-word detection (`detect`, or Home Assistant's
/// older audio-only sequence), speech (`synthesize` and its streaming form). A fault is an
/// `error` event and the connection goes on; unknown events are ignored.
final class WyomingConnection: @unchecked Sendable {
    private let server: SpeechServer
    private let channel: ByteChannel
    private var parser: WyomingParser

    /// What the next audio is for.
    private enum Purpose { case transcribe(model: String, language: String), wake(names: [String]) }
    private var purpose: Purpose?
    private var stream: StreamingRecognition?
    /// The stream is a wake-word detection's.
    private var isWakeStream = false
    /// What the session's delivery thread collects.
    private let heard = Mutex(Heard())
    private struct Heard {
        var text = ""
        var detections = 0
        var utterance = -1
        var spotted = 0
        /// The wake phrase listened for.
        var phrase: String?
        var receivedMilliseconds = 0
        var error: EngineError?
    }
    /// `synthesize-start` ... `synthesize-stop`: the voice and the text not yet spoken.
    private var streamingSpeech: (voice: String, pending: String)?

    init(server: SpeechServer, channel: ByteChannel) {
        self.server = server
        self.channel = channel
        parser = WyomingParser(limit: server.configuration.maxMessageBytes)
    }

    /// Reads and answers events until the client closes, goes idle, or stops reading.
    func run() {
        server.metrics.opened(.wyoming)
        var buffer = [UInt8](repeating: 0, count: 65536)
        var why = "closed by the client"
        loop: while true {
            guard let n = channel.read(into: &buffer, timeout: server.configuration.idleSeconds) else {
                why = "idle for \(Int(server.configuration.idleSeconds)) s"
                send(WyomingEvent("error", ["text": "no event for \(Int(server.configuration.idleSeconds)) s: closing", "code": "idle"]))
                break
            }
            if n == 0 { break }
            parser.feed(buffer[0..<n])
            while let item = parser.next() {
                switch item {
                case .event(let e): handle(e)
                case .fault(let f): send(WyomingEvent("error", ["text": f.text, "code": f.code]))
                }
                if channel.failed { why = channel.failure; break loop }
            }
        }
        if stream != nil { endStream(cancelled: true) }
        if why != "closed by the client" { server.write(log: "wyoming \(channel.peer): dropped: \(why)") }
        channel.close()
    }

    private func send(_ event: WyomingEvent) { channel.write(event.encoded()) }

    private func fault(_ text: String, _ code: String) { send(WyomingEvent("error", ["text": text, "code": code])) }

    private func handle(_ e: WyomingEvent) {
        switch e.type {
        case "describe": send(WyomingInfo.event(server.catalog))
        case "ping": send(WyomingEvent("pong", e.string("text").map { ["text": $0] } ?? [:]))
        case "transcribe":
            let model = e.string("name") ?? WyomingInfo.defaultModel(server.catalog)
            let language = e.string("language") ?? "en"
            guard language.lowercased().hasPrefix("en") else { return fault("transcribe: language \"\(language)\" is not offered (en)", "language") }
            guard server.catalog.entries[model] != nil, server.catalog.entries[model]?.keyphrase == nil else {
                let why = server.catalog.leftOut[model].map { ": it is not served (\($0))" } ?? ""
                return fault("transcribe: no model \"\(model)\"\(why) (models: \(WyomingInfo.asrModels(server.catalog).joined(separator: ", ")))", "model")
            }
            purpose = .transcribe(model: model, language: language)
        case "detect":
            purpose = .wake(names: (e.data["names"] as? [Any])?.compactMap { $0 as? String } ?? [])
        case "audio-start": startStream(e)
        case "audio-chunk": pushChunk(e)
        case "audio-stop":
            guard stream != nil else { return fault("audio-stop without audio-start", "no-audio") }
            endStream(cancelled: false)
        case "synthesize":
            if streamingSpeech != nil { return }  // the streaming form's full text: already spoken by chunks
            speak(e.string("text") ?? "", voice: Self.voiceName(e))
        case "synthesize-start": streamingSpeech = (Self.voiceName(e), "")
        case "synthesize-chunk":
            guard var s = streamingSpeech else { return fault("synthesize-chunk without synthesize-start", "no-start") }
            s.pending += e.string("text") ?? ""
            // Whole sentences are spoken as soon as they are complete, and text that runs on
            // without one once it is a sentence's longest (the text waiting stays bounded).
            if let cut = s.pending.lastIndex(where: { ".!?\n".contains($0) })
                ?? (s.pending.utf8.count > SpokenPieces.longest ? s.pending.lastIndex(of: " ") ?? s.pending.indices.last : nil) {
                let ready = String(s.pending[...cut])
                s.pending = String(s.pending[s.pending.index(after: cut)...])
                speak(ready, voice: s.voice)
            }
            streamingSpeech = s
        case "synthesize-stop":
            guard let s = streamingSpeech else { return fault("synthesize-stop without synthesize-start", "no-start") }
            if !s.pending.trimmingCharacters(in: .whitespaces).isEmpty { speak(s.pending, voice: s.voice) }
            streamingSpeech = nil
            send(WyomingEvent("synthesize-stopped"))
        default: break  // unknown events are ignored; the connection stays open
        }
    }

    private static func voiceName(_ e: WyomingEvent) -> String {
        (e.data["voice"] as? [String: Any])?["name"] as? String ?? "rms"
    }

    // MARK: Recognition

    private func startStream(_ e: WyomingEvent) {
        if stream != nil { endStream(cancelled: true) }
        guard let rate = e.whole("rate"), let width = e.whole("width"), let channels = e.whole("channels") else {
            return fault("audio-start needs rate, width and channels, whole numbers", "bad-audio")
        }
        var options = StreamingRecognition.Options()
        let purpose = self.purpose ?? .wake(names: [])  // audio alone: Home Assistant's older wake sequence
        switch purpose {
        case .transcribe(let model, _):
            options.graph = model
        case .wake(let names):
            guard let wake = WyomingInfo.wakeGraph(server.catalog) else { return fault("this server has no wake-word graph", "model") }
            options.graph = wake
            options.partials = 0.1  // the spotter's partials report a detection during the audio
            if let name = names.first { options.keyphrase = name.replacingOccurrences(of: "_", with: " ") }
        }
        let phrase = options.keyphrase ?? server.catalog.entries[options.graph]?.keyphrase
        heard.withLock { $0 = Heard(); $0.phrase = phrase }
        let isWake: Bool = if case .wake = purpose { true } else { false }
        switch server.beginSession(.wyoming, peer: channel.peer, app: nil, appLimit: nil, options: options, rate: rate,
                                   channels: channels, width: width, onEvent: { [weak self] event in self?.sessionEvent(event, wake: isWake) }) {
        case .success(let s):
            stream = s
            isWakeStream = isWake
            if !isWake { send(WyomingEvent("transcript-start", ["language": "en"])) }
        case .failure(let f):
            fault(f.message, f.code == "bad-request" ? "bad-audio" : f.code)
        }
    }

    private func pushChunk(_ e: WyomingEvent) {
        guard let stream else { return fault("audio-chunk without audio-start", "no-audio") }
        // A field that is there must be the stream's (a number that is no whole number is not).
        func differs(_ key: String, _ value: Int) -> Bool { !(e.data[key] == nil || e.data[key] is NSNull) && e.whole(key) != value }
        if differs("rate", stream.rate) || differs("width", stream.width) || differs("channels", stream.channels) {
            return fault("audio-chunk: format differs from audio-start's (\(stream.rate) Hz, \(stream.width) bytes, \(stream.channels) channel\(stream.channels == 1 ? "" : "s"))", "bad-audio")
        }
        guard let payload = e.payload else { return }
        // A wake-word stream has no end of its own (a satellite listens for as long as it runs,
        // its graph's utterances are bounded): no session limit. Before, it ended with
        // `too-long`, and a satellite streaming on got an error for every chunk.
        if !isWakeStream, stream.audioSeconds > server.configuration.maxSessionSeconds {
            fault("session longer than \(Int(server.configuration.maxSessionSeconds)) s of audio: ended", "too-long")
            return endStream(cancelled: false)
        }
        payload.withUnsafeBytes { _ = stream.push($0) }
        let ms = Int(stream.audioSeconds * 1000)
        heard.withLock { $0.receivedMilliseconds = ms }
    }

    /// Ends the stream: its audio finishes (or is cancelled), the last results come, then the
    /// closing events (`transcript` + `transcript-stop`, or `not-detected`).
    private func endStream(cancelled: Bool) {
        guard let s = stream else { return }
        stream = nil
        if cancelled { s.cancel() } else { s.finishAudio() }
        _ = s.waitUntilEnded()
        let h = heard.withLock { $0 }
        guard !cancelled else { return }
        if let error = h.error { fault(error.description, "session") }
        switch purpose ?? .wake(names: []) {
        case .transcribe(_, let language):
            send(WyomingEvent("transcript", ["text": h.text, "language": language]))
            send(WyomingEvent("transcript-stop"))
        case .wake:
            if h.detections == 0 { send(WyomingEvent("not-detected")) }
        }
        purpose = nil
    }

    /// The session's events, on its delivery thread.
    private func sessionEvent(_ event: EngineEvent, wake: Bool) {
        let ms = { (t: Double) in Int((t * 1000).rounded()) }
        switch event {
        case .speechStart(_, let t, _) where !wake: send(WyomingEvent("voice-started", ["timestamp": ms(t)]))
        case .speechEnd(_, let t, _) where !wake: send(WyomingEvent("voice-stopped", ["timestamp": ms(t)]))
        case .partial(_, let utterance, let text) where wake:
            detect(utterance: utterance, text: text)
        case .final(_, let r):
            if wake {
                detect(utterance: r.utterance, text: r.text)
            } else if !r.text.isEmpty {
                // Append-only: each final is text that will not change; joined, they are the transcript.
                let chunk = heard.withLock { h -> String in
                    let c = h.text.isEmpty ? r.text : " " + r.text
                    h.text += c
                    return c
                }
                send(WyomingEvent("transcript-chunk", ["text": chunk]))
            }
        case .error(let e): heard.withLock { if $0.error == nil { $0.error = e } }
        default: break
        }
    }

    /// A wake-word detection each time the spotted text of an utterance holds one more
    /// occurrence of a phrase: partials report it during the audio, the final at its end.
    private func detect(utterance: Int, text: String) {
        let words = text.split(separator: " ").map(String.init)
        guard !words.isEmpty, let phrase = heard.withLock({ $0.phrase }) else { return }
        let p = phrase.split(separator: " ").map(String.init)
        var count = 0
        var i = 0
        while i + p.count <= words.count {
            if Array(words[i..<(i + p.count)]) == p { count += 1; i += p.count } else { i += 1 }
        }
        let new = heard.withLock { h -> Int in
            if h.utterance != utterance { h.utterance = utterance; h.spotted = 0 }
            let n = max(0, count - h.spotted)
            h.spotted += n
            h.detections += n
            return n
        }
        let at = heard.withLock { $0.receivedMilliseconds }  // the audio received so far
        for _ in 0..<new { send(WyomingEvent("detection", ["name": phrase, "timestamp": at])) }
    }

    // MARK: Speech

    /// Speaks `text`: audio-start, audio-chunks of 1024 samples, audio-stop; each sentence's
    /// chunks as soon as it is made. Speech longer than `--max-session-seconds` stops there,
    /// with a `too-long` error after the audio-stop; a client gone stops it too.
    private func speak(_ text: String, voice: String) {
        if let refusal = server.limiter.admit(app: nil, appLimit: nil) {
            server.metrics.refused(.wyoming, refusal.rawValue)
            return fault("server \(refusal.rawValue): try again later", refusal.rawValue)
        }
        defer { server.limiter.release(app: nil) }
        guard let rate = Vocalizer.sampleRate(of: voice) else {
            return fault("synthesize: no voice \"\(voice)\" (voices: \(Vocalizer.voices.joined(separator: ", ")))"
                         + (Vocalizer.unavailable.map { "; \($0)" } ?? ""), "voice")
        }
        let format: [String: Any] = ["rate": rate, "width": 2, "channels": 1]
        send(WyomingEvent("audio-start", format.merging(["timestamp": 0]) { a, _ in a }))
        let (samples, end) = SpokenFrames.speak(text, voice: voice, sampleRate: rate, frame: 1024,
                                                seconds: server.configuration.maxSessionSeconds) { frame, at in
            send(WyomingEvent("audio-chunk", format.merging(["timestamp": at * 1000 / rate]) { a, _ in a }, payload: PCM16.data(frame)))
            return !channel.failed
        }
        send(WyomingEvent("audio-stop", ["timestamp": samples * 1000 / rate]))
        if end == .tooLong { fault("synthesize: speech longer than \(Int(server.configuration.maxSessionSeconds)) s of audio: stopped there", "too-long") }
    }
}
