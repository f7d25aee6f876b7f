import AudioGraphCore
import Foundation

/// Where Debian's pocketsphinx-en-us model lives, and checks that a model is complete.
public enum SpeechModel {
    /// Acoustic model directory of Debian's pocketsphinx-en-us.
    public static let defaultHMM = "/usr/share/pocketsphinx/model/en-us/en-us"
    /// Language model of Debian's pocketsphinx-en-us.
    public static let defaultLM = "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin"
    /// Pronunciation dictionary of Debian's pocketsphinx-en-us.
    public static let defaultDict = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"

    /// Whether the default model is installed.
    public static var isDefaultInstalled: Bool {
        [defaultHMM, defaultLM, defaultDict].allSatisfy { FileManager.default.fileExists(atPath: $0) }
    }

    /// Checks an acoustic model directory and a pronunciation dictionary before PocketSphinx
    /// reads them: PocketSphinx ends the process on most damaged model files and drops
    /// dictionary lines it cannot use without a word. The error names the parameter (`hmm`
    /// or `dict`) and the file. About 25-60 ms for Debian's en-us model and dictionary, the
    /// first time: files that passed and have not changed are not read again (their stamps
    /// are kept in the cache folder).
    public static func check(hmm: String, dict: String) throws(EngineError) {
        _ = try checked(hmm: hmm, dict: dict)
    }

    /// `check`, returning the model's phones. Files that passed before and have not changed
    /// since are not read again (``CheckedModels``).
    static func checked(hmm: String, dict: String,
                        records: String? = CacheFolder.path) throws(EngineError) -> [String] {
        if let phones = CheckedModels.phones(hmm: hmm, dict: dict, in: records) { return phones }
        let model: ModelDefinition
        do {
            model = try AcousticModelCheck.check(hmm)
        } catch {
            throw EngineError(.model, error.message, file: error.file, parameter: "hmm",
                              suggestion: hmm == defaultHMM ? "reinstall Debian's pocketsphinx-en-us" : "point hmm at a complete acoustic model")
        }
        do {
            try PronunciationDictionary.check(dict, phones: model.phones)
        } catch {
            throw EngineError(.model, error.message, file: error.file, parameter: "dict")
        }
        CheckedModels.remember(hmm: hmm, dict: dict, phones: model.phones, in: records)
        return model.phones
    }

    /// Whether recognizers keep their loaded model for the next session with the same model
    /// files and settings (off by default). A program that runs many sessions one after
    /// another (a batch of files, the `audiograph batch` command) then loads the model once
    /// per concurrent session rather than once per session; a kept decoder starts each
    /// session as freshly loaded, so results do not depend on what it decoded before.
    /// Setting it to false frees the kept ones. Assistant-mode recognizers (a wake word) are
    /// not kept.
    public static var keepsLoadedModels: Bool {
        get { LoadedDecoders.shared.keeping }
        set { LoadedDecoders.shared.keeping = newValue }
    }

    /// At most this many loaded models are kept while ``keepsLoadedModels`` (default 8, about
    /// 75 MB each with the default model): past it, the least recently used is freed. Kept
    /// models otherwise stay as many as were ever in use at once.
    public static var loadedModelsLimit: Int {
        get { LoadedDecoders.shared.limit }
        set { LoadedDecoders.shared.limit = newValue }
    }

    /// How many loaded models are kept now, waiting for a recognizer.
    public static var loadedModelsKept: Int { LoadedDecoders.shared.idleCount }

    /// Routes PocketSphinx's log lines away from stderr (they would break the one-line
    /// error rule and `--json` output).
    public static func silenceLogging() {
        PocketSphinxDecoder.silenceLogging()
    }
}
