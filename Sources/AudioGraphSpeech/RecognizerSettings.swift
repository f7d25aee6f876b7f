import AudioGraphCore
import Foundation

/// What a `recognizer` node was asked for: its parameters, read once from the descriptor's
/// resolved values and checked (files there, a search that makes sense), in the units the
/// decoder takes. Immutable: the node, its model load and its decoding thread share it.
struct RecognizerSettings: Sendable {
    /// The node's id (events and errors name it).
    let nodeId: String
    /// The acoustic model directory and pronunciation dictionary.
    let hmm: String, dict: String
    /// The `vocabulary` file, if any.
    let vocabularyPath: String?
    /// What the decoder searches: a language model, a grammar or a key phrase.
    let search: PocketSphinxDecoder.Search
    /// At most one partial result per this many 16 kHz frames (0: none).
    let partialFrames: Int
    /// n-best alternatives in final results.
    let alternatives: Int
    /// Whether to go on after the first utterance.
    let continuous: Bool
    /// Search limits per frame (active HMMs, word exits, second pass).
    let limits: PocketSphinxDecoder.Limits
    /// The front end's frequency warp (1: none; PocketSphinx's inverse-linear warp).
    let warp: Double
    /// Where final results come from.
    let finalPass: Recognizer.FinalPass
    /// Seconds of the first utterance held back to measure its cepstral mean (single pass).
    let cmnLookahead: Double
    /// Limits of the cheaper search whose first words a session's first utterance shows
    /// while its held audio is decoded in full (see `UtteranceDecoder`); nil: none.
    let previewLimits: PocketSphinxDecoder.Limits?
    /// Whether word confidences follow the session's estimated share of right words
    /// (``SessionCalibration``).
    let sessionCalibration: Bool
    /// Assistant mode: the wake word, its detection threshold, the command timeout.
    let wake: (phrase: String, threshold: Double, timeout: Double)?

    /// Reads and checks `p` (errors name the parameter).
    init(_ p: ResolvedParameters) throws(GraphError) {
        nodeId = p.nodeId
        hmm = p.text("hmm")
        dict = p.text("dict")
        vocabularyPath = p.string("vocabulary")
        let grammar = p.string("grammar"), keyphrase = p.string("keyphrase")
        if grammar != nil && keyphrase != nil {
            throw p.error("keyphrase", "give either a grammar or a keyphrase, not both")
        }
        if let w = p.string("wake-word") {
            let phrase = w.lowercased().split(separator: " ").joined(separator: " ")
            guard !phrase.isEmpty else { throw p.error("wake-word", "expected a phrase, got an empty string") }
            if keyphrase != nil {
                throw p.error("wake-word", "a wake word is followed by a command: give a grammar or a language model, not a keyphrase")
            }
            wake = (phrase, p.number("threshold"), p.number("command-timeout"))
        } else {
            wake = nil
        }
        func mustExist(_ path: String, _ param: String, directory: Bool = false) throws(GraphError) {
            let kind = PathKind(path)
            if kind == (directory ? .directory : .regular) { return }
            // A pipe or a device is no file: PocketSphinx reads a grammar by name after the
            // check, and its parser read /dev/zero for ever and waited on a pipe.
            if !directory && ![.missing, .directory].contains(kind) {
                throw p.error(param, "\(path): is \(kind.noun), not a file")
            }
            throw p.error(param, "\(path): no such \(directory ? "model directory" : "file")",
                          suggestion: param == "grammar" || param == "vocabulary" ? nil : "install Debian's pocketsphinx-en-us or point \(param) at a model")
        }
        try mustExist(hmm, "hmm", directory: true)
        try mustExist(hmm + "/mdef", "hmm")
        try mustExist(dict, "dict")
        if let vocabularyPath { try mustExist(vocabularyPath, "vocabulary") }
        if let grammar {
            try mustExist(grammar, "grammar")
            do {
                try GrammarCheck.examine(text: FileManager.default.contents(atPath: grammar).map { String(decoding: $0, as: UTF8.self) } ?? "",
                                         path: grammar)
            } catch {
                throw p.error("grammar", error.message, suggestion: error.suggestion)
            }
            search = .grammar(grammar)
        } else if let keyphrase {
            guard !keyphrase.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw p.error("keyphrase", "expected a phrase, got an empty string")
            }
            search = .keyphrase(keyphrase.lowercased(), threshold: p.number("threshold"))
        } else {
            let lm = p.text("lm")
            try mustExist(lm, "lm")
            search = .languageModel(lm)
        }
        // Any interval above 0 gives partials: one shorter than a sample, as often as they come.
        let partials = p.number("partials")
        partialFrames = partials > 0 ? max(1, Int(partials * 16000)) : 0
        alternatives = p.integer("alternatives")
        continuous = p.bool("continuous")
        sessionCalibration = p.bool("session-calibration")
        limits = .init(hmms: p.integer("max-hmms"), wordExits: p.integer("max-word-exits"), secondPass: p.bool("second-pass"),
                       gaussians: p.integer("top-gaussians"))
        warp = p.number("warp")
        finalPass = p.choice("final")
        cmnLookahead = p.number("cmn-lookahead")
        let previewHMMs = p.integer("preview-hmms")
        let previews = finalPass == .live && cmnLookahead > 0 && partialFrames > 0 && previewHMMs > 0
        previewLimits = previews ? .init(hmms: previewHMMs, wordExits: limits.wordExits, gaussians: limits.gaussians) : nil
    }

    /// What a decoder of these settings is kept under when models are kept loaded
    /// (``SpeechModel/keepsLoadedModels``); nil when it is not kept.
    var reuseKey: String? { LoadedDecoders.shared.keeping ? decoderKey : nil }

    /// What tells decoders of these settings apart from others (model, search, limits, files);
    /// nil in assistant mode (the wake-word spotter is a second decoder tied to this one).
    var decoderKey: String? {
        guard wake == nil else { return nil }
        let searchText: String, files: [String]
        switch search {
        case .languageModel(let lm): (searchText, files) = ("lm", [lm])
        case .grammar(let g): (searchText, files) = ("jsgf", [g])
        case .keyphrase(let k, let t): (searchText, files) = ("kws \(k) \(t)", [])
        }
        return LoadedDecoders.key(
            [hmm, searchText, "\(limits.hmms)/\(limits.wordExits)\(limits.secondPass ? "" : "/1")/g\(limits.gaussians)", finalPass.rawValue,
             warp == 1 ? "-" : "w\(warp)", previewLimits.map { "\($0.hmms)/\($0.wordExits)" } ?? "-"],
            files: [hmm + "/mdef", hmm + "/means", dict] + files + (vocabularyPath.map { [$0] } ?? []))
    }
}
