import CPocketSphinx
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

    /// Routes PocketSphinx's log lines away from stderr (they would break the one-line
    /// error rule and `--json` output).
    public static func silenceLogging() {
        err_set_logfp(nil)
    }
}
