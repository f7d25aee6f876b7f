import AudioGraphCore
import Foundation

/// Listens for a wake word with a PocketSphinx key-phrase search of its own, over every
/// sample the recognizer takes in while it waits (no utterances: the phrase may come at
/// any time), on the recognizer's decoding thread.
///
/// Its decoder shares nothing with the command decoder: the command search keeps its
/// cepstral mean and state across the wake word. Its dictionary holds only the phrase's
/// words (taken from the model's), so it loads in a fraction of the full one's time.
final class WakeWordSpotter {
    let phrase: String
    /// The key-phrase search (its own front end, with the recognizer's warp).
    let decoder: PocketSphinxDecoder
    /// Samples decoded since the phrase search's utterance began.
    private var fed = 0
    /// Absolute index of the next sample; looks at the hypothesis every `step` of the stream.
    private var next: Int64 = 0
    private var sinceLook = 0
    private let scratch = UnsafeMutablePointer<Int16>.allocate(capacity: step)

    /// Samples between looks at the hypothesis (20 ms, at fixed points of the stream).
    static let step = 320
    /// The search's utterance starts again after this much audio without the phrase (60 s),
    /// so a session that waits for hours keeps its memory.
    static let restartSamples = 16000 * 60
    /// Sound no louder than this (16-bit steps) is a digital path's dither, not a room.
    static let ditherLevel: Int16 = 2

    /// Loads a key-phrase search for `phrase`, its words' pronunciations taken from `dictionary`
    /// (whose front end's `warp` it hears with too: the same talker).
    init(phrase: String, threshold: Double, hmm: String, dictionary: PocketSphinxDecoder) throws(EngineError) {
        self.phrase = phrase
        var lines: [String] = []
        for w in Set(phrase.split(separator: " ").map(String.init)).sorted() {
            guard let pron = dictionary.pronunciation(of: w) else {
                throw EngineError(.model, "\"\(w)\" of the wake word is not in the dictionary",
                                  parameter: "wake-word", suggestion: "spell the wake word with dictionary words")
            }
            lines.append("\(w) \(pron)")
        }
        let dict = FileManager.default.temporaryDirectory
            .appendingPathComponent("audiograph-wake-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).dict")
        do { try (lines.joined(separator: "\n") + "\n").write(to: dict, atomically: false, encoding: .utf8) } catch {
            throw EngineError(.io, "cannot write the wake word's dictionary to \(dict.path): \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(at: dict) }
        decoder = try PocketSphinxDecoder(hmm: hmm, dict: dict.path, search: .keyphrase(phrase, threshold: threshold),
                                          limits: .init(hmms: 30000, wordExits: 20), warp: dictionary.warp,
                                          dropsSilence: false)
        decoder.startUtterance()
    }

    deinit { scratch.deallocate() }

    /// Decodes `n` samples; true when the phrase has just been heard (the search then starts
    /// a new utterance for the next time).
    func take(_ x: UnsafePointer<Float>, _ n: Int) -> Bool {
        var k = 0
        while k < n {
            let m = min(n - k, Self.step - sinceLook)
            var silent = true, dither = true
            for i in 0..<m {
                let v = PCM.int16(x[k + i])
                silent = silent && v == 0
                dither = dither && v.magnitude <= Self.ditherLevel
                scratch[i] = v
            }
            // Exact zeros (what the graph itself played, left out by the gate; a file's
            // padding) carry nothing to spot and are not decoded. A bit or two of dither
            // (a digital path's requantisation, between sounds, where a microphone would
            // hear its room) is decoded, so the search goes on past a phrase just heard,
            // but the cepstral mean does not learn from it: seconds of it pulled the mean
            // of the loudness far below any room's, and the next wake word went unheard.
            if !silent {
                let mean = dither ? decoder.liveCepstralMean() : nil
                decoder.process(scratch, count: m)
                if let mean { decoder.restoreLiveCepstralMean(mean) }
            }
            k += m
            next += Int64(m)
            fed += m
            sinceLook += m
            if sinceLook == Self.step {
                sinceLook = 0
                if !decoder.hypothesis().isEmpty {
                    restart()
                    return true
                }
                if fed >= Self.restartSamples { restart() }
            }
        }
        return false
    }

    /// Starts the phrase search afresh (after a detection, or on returning to the wake word).
    func restart() {
        decoder.endUtterance()
        decoder.startUtterance()
        fed = 0
    }
}
