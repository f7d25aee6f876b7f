import Foundation

/// A tuning constant's value: `value`, or in a build made for measuring the constants
/// (`swift build -Xswiftc -DAG_TUNING_OVERRIDES`, as `Tools/decoder_loso.py` and
/// `Tools/vad_loso.py` make one) the environment's `AG_TUNE_<name>` when it is set. Normal
/// builds compile the lookup out. Read once, where a `static let` is first used.
@inlinable package func tuned(_ name: String, _ value: Double) -> Double {
    #if AG_TUNING_OVERRIDES
    if let text = ProcessInfo.processInfo.environment["AG_TUNE_" + name], let v = Double(text) { return v }
    #endif
    return value
}

/// `tuned(_:_:)` for a `Float` constant.
@inlinable package func tuned(_ name: String, _ value: Float) -> Float {
    Float(tuned(name, Double(value)))
}

/// PocketSphinx's command-line arguments with, in a build made for measuring the constants,
/// the environment's `AG_TUNE_PS` ("-name value ...") set over them (`Tools/decoder_loso.py`).
package func tunedArguments(_ args: [String]) -> [String] {
    #if AG_TUNING_OVERRIDES
    if let text = ProcessInfo.processInfo.environment["AG_TUNE_PS"] {
        var out = args
        let extra = text.split(separator: " ").map(String.init)
        for i in stride(from: 0, to: extra.count - 1, by: 2) {
            if let j = out.firstIndex(of: extra[i]) { out[j + 1] = extra[i + 1] } else { out += [extra[i], extra[i + 1]] }
        }
        return out
    }
    #endif
    return args
}
