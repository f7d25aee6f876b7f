import AudioGraph
import AudioGraphSpeech
import Foundation

/// The `info` event: what this server offers, in the shape Home Assistant reads (the
/// `wyoming` package's `info.py`): speech-to-text models (the catalogue's recognizer graphs),
/// flite's voices, the wake phrases (the catalogue's key-phrase graphs).
enum WyomingInfo {
    static var attribution: [String: Any] { ["name": "audiograph", "url": "https://github.com/audiograph/audiograph"] }
    static let version = "0.4.0"

    /// Recognizer graphs without a key phrase, the default (`transcribe`) first.
    static func asrModels(_ catalog: ServerGraphs) -> [String] {
        let names = catalog.names.filter { catalog.entries[$0]?.keyphrase == nil }
        return names.filter { $0 == "transcribe" } + names.filter { $0 != "transcribe" }
    }

    static func defaultModel(_ catalog: ServerGraphs) -> String { asrModels(catalog).first ?? "transcribe" }

    /// The first key-phrase graph.
    static func wakeGraph(_ catalog: ServerGraphs) -> String? { catalog.names.first { catalog.entries[$0]?.keyphrase != nil } }

    static func event(_ catalog: ServerGraphs) -> WyomingEvent {
        func artifact(_ name: String, _ description: String) -> [String: Any] {
            ["name": name, "attribution": attribution, "installed": true, "description": description, "version": version]
        }
        let models = asrModels(catalog).map { name -> [String: Any] in
            var m = artifact(name, catalog.entries[name]!.description)
            m["languages"] = ["en"]
            return m
        }
        var asr = artifact("audiograph", "PocketSphinx (en-us) in audiograph graphs")
        asr["models"] = models
        asr["supports_transcript_streaming"] = true
        asr["requires_external_vad"] = false
        let voices = Vocalizer.unavailable == nil ? Vocalizer.voices.map { v -> [String: Any] in
            var m = artifact(v, "flite \(v)")
            m["languages"] = ["en"]
            return m
        } : []
        var tts = artifact("audiograph-flite", "flite speech")
        tts["voices"] = voices
        tts["supports_synthesize_streaming"] = true
        let phrases = catalog.names.compactMap { catalog.entries[$0]?.keyphrase }
        let wakeModels = phrases.map { p -> [String: Any] in
            var m = artifact(p.replacingOccurrences(of: " ", with: "_"), "key phrase \"\(p)\"")
            m["languages"] = ["en"]
            m["phrase"] = p
            return m
        }
        var wake = artifact("audiograph-wake", "PocketSphinx key-phrase spotting")
        wake["models"] = wakeModels
        return WyomingEvent("info", ["asr": [asr], "tts": voices.isEmpty ? [] : [tts], "wake": wakeModels.isEmpty ? [] : [wake],
                                     "handle": [], "intent": [], "mic": [], "snd": []])
    }
}
