import CFlite
import Foundation
import Synchronization

/// flite, opened by the first voice or pronunciation asked for (CFlite.h).
enum Flite {
    private static let library: (api: ag_flite_api?, failure: String?) = {
        var why: UnsafePointer<CChar>?
        guard let table = ag_flite_load(&why) else { return (nil, why.map { String(cString: $0) } ?? "unknown error") }
        return (table.pointee, nil)
    }()

    /// Why flite cannot be used, if it cannot.
    static var failure: String? { library.failure }
    /// Its functions; only once ``failure`` is nil.
    static var api: ag_flite_api { library.api! }
}

/// The one place that calls flite (Debian's flite1-dev): voices and synthesis.
///
/// flite keeps global state (its lexicon, registered voices), so every call goes through one
/// lock; synthesis runs on a speech worker's thread, never the render thread (it allocates).
final class FliteVoice: @unchecked Sendable {
    /// The voices Debian's flite ships, by the names `flite -voice` takes.
    static let names = ["rms", "slt", "awb", "kal16", "kal"]

    static let lock = Mutex<Void>(())
    /// The feature's name, for good: flite keeps the pointer a feature is first set with (its
    /// own callers pass literals). A Swift string passed there is a temporary copy, freed after
    /// the call, which a voice without the feature kept and every later lookup of any of its
    /// features compared against (freed memory: a server crashed after some hundreds of
    /// synthesize requests).
    nonisolated(unsafe) private static let durationStretch = UnsafePointer(strdup("duration_stretch")!)
    nonisolated(unsafe) private static var initialised = false

    let name: String
    private let voice: UnsafeMutablePointer<cst_voice>
    /// Samples per second of this voice's speech (kal: 8000; the others: 16000).
    let sampleRate: Int

    /// Loads a voice by name; nil for a name not in ``names``.
    init?(_ name: String) {
        guard Flite.failure == nil else { return nil }
        let loaded: (UnsafeMutablePointer<cst_voice>, Int)? = Self.lock.withLock { _ in
            if !Self.initialised {
                _ = Flite.api.flite_init()
                Self.initialised = true
            }
            guard let v = Self.register(name), let probe = Flite.api.flite_text_to_wave("a", v) else { return nil }
            defer { Flite.api.delete_wave(probe) }
            return (v, Int(probe.pointee.sample_rate))
        }
        guard let loaded else { return nil }
        self.name = name
        voice = loaded.0
        sampleRate = loaded.1
    }

    /// Loads voice `name`'s library (Debian's libflite_cmu_us_NAME.so.1) and registers the
    /// voice; nil for a name not in ``names`` or a library that is not there. The library
    /// stays loaded: the voice points into it. Called under ``lock``.
    private static func register(_ name: String) -> UnsafeMutablePointer<cst_voice>? {
        guard names.contains(name), let library = dlopen("libflite_cmu_us_\(name).so.1", RTLD_NOW),
              let symbol = dlsym(library, "register_cmu_us_\(name)") else { return nil }
        typealias Register = @convention(c) (UnsafePointer<CChar>?) -> UnsafeMutablePointer<cst_voice>?
        return unsafeBitCast(symbol, to: Register.self)(nil)
    }

    /// Speaks `text` at `rate` (1: the voice's own pace, 2: twice as fast) as samples in
    /// -1...1 at ``sampleRate``; empty when flite finds nothing to say.
    func synthesize(_ text: String, rate: Double) -> [Float] {
        Self.lock.withLock { _ -> [Float] in
            Flite.api.feat_set_float(voice.pointee.features, Self.durationStretch, Float(1 / rate))
            // The clustergen voices draw their excitation noise from the C library's rand():
            // the same seed for every text makes the same text sound the same (offline runs
            // give the same audio whatever was spoken before, and however the blocks fall).
            srand(1)
            guard let wave = Flite.api.flite_text_to_wave(text, voice) else { return [] }
            defer { Flite.api.delete_wave(wave) }
            let n = Int(wave.pointee.num_samples) * max(1, Int(wave.pointee.num_channels))
            guard n > 0, let samples = wave.pointee.samples else { return [] }
            return (0..<n).map { Float(samples[$0]) / 32768 }
        }
    }
}

/// flite's US English lexicon (CMU dictionary with letter-to-sound rules for words it lacks),
/// as pronunciations in PocketSphinx's phone set.
enum FliteLexicon {
    nonisolated(unsafe) private static var lexicon: UnsafeMutablePointer<cst_lexicon>?

    /// The phones of `word` (lowercase letters and apostrophes), or nil when flite gives none.
    /// A word outside flite's lexicon with no vowel letter (a, e, i, o, u, y), or one its
    /// letter-to-sound rules make nothing of ("djh"), is spelled letter by letter, as flite's
    /// own synthesizer says it ("xkcd": "ex kay see dee"; its rules gave "z k d", and nothing
    /// for "djh", which then left the word out of a vocabulary).
    static func pronunciation(of word: String) -> [String]? {
        guard Flite.failure == nil else { return nil }
        return FliteVoice.lock.withLock { _ -> [String]? in
            if lexicon == nil { lexicon = Flite.api.cmu_lex_init() }
            guard let lexicon else { return nil }
            let letters = word.filter { $0 != "'" }
            let ruled = phones(of: word, in: lexicon)
            let asLetters = ruled.isEmpty
                || (Flite.api.in_lex(lexicon, word, nil, nil) == 0 && !letters.contains { "aeiouy".contains($0) })
            let made = asLetters ? letters.flatMap { phones(of: String($0), in: lexicon, partOfSpeech: "n") } : ruled
            return made.isEmpty ? nil : made
        }
    }

    /// flite's phones of `text` in the lexicon (`partOfSpeech` "n": a letter's name, not
    /// the article "a"), mapped to PocketSphinx's set. Called under ``FliteVoice/lock``.
    private static func phones(of text: String, in lexicon: UnsafeMutablePointer<cst_lexicon>, partOfSpeech: String? = nil) -> [String] {
        guard let list = Flite.api.lex_lookup(lexicon, text, partOfSpeech, nil) else { return [] }
        defer { Flite.api.delete_val(list) }
        var phones: [String] = []
        var v: UnsafePointer<cst_val>? = UnsafePointer(list)
        while let cell = v {
            if let s = Flite.api.val_string(Flite.api.val_car(cell)) { phones.append(phone(String(cString: s))) }
            v = Flite.api.val_cdr(cell)
        }
        return phones
    }

    /// flite's phone ("ax0", "ow1") in the CMU set PocketSphinx's en-us model uses ("AH", "OW").
    static func phone(_ flite: String) -> String {
        let bare = flite.filter { !$0.isNumber }.uppercased()
        return bare == "AX" ? "AH" : bare
    }
}
