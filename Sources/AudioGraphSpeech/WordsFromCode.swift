import AudioGraphConversation
import AudioGraphCore
import Foundation

/// Words and phrases given from code (``Recognizer/addVocabulary(_:)``): checked when given,
/// on any thread; added by the decoding thread before the first utterance or between two
/// (never inside one), for the rest of the run.
final class WordsFromCode: Sendable {
    private let settings: RecognizerSettings
    /// Entries the decoding thread has yet to add.
    private let pending = Locked<[[VocabularyEntry]]>([])
    /// The acoustic model's phones, read when first needed (or told by the model's `open`).
    private let phones = Locked<Set<String>?>(nil)

    init(_ settings: RecognizerSettings) { self.settings = settings }

    /// The model's phones, as its check read them.
    func know(phones list: [String]) { phones.withLock { $0 = Set(list) } }

    /// Checks `entries` (spelling, phones the model has) and queues them. Any thread.
    func add(_ entries: [VocabularyEntry]) throws(EngineError) {
        guard case .languageModel = settings.search else {
            throw EngineError(.model, "words from code need a language model; a grammar or key phrase takes its words from the vocabulary file",
                              node: settings.nodeId, parameter: "vocabulary")
        }
        do {
            // Spelling and phones now; whether the dictionary knows the words, on the decoding thread.
            try Vocabulary.check(entries, phones: try modelPhones())
        } catch {
            throw error.atNode(settings.nodeId)
        }
        pending.withLock { $0.append(entries) }
    }

    /// The acoustic model's phones (read once).
    private func modelPhones() throws(EngineError) -> Set<String> {
        if let known = phones.withLock({ $0 }) { return known }
        let read: Set<String>
        do {
            read = Set(try AcousticModelCheck.check(settings.hmm).phones)
        } catch {
            throw EngineError(.model, error.message, file: error.file, node: settings.nodeId, parameter: "hmm")
        }
        phones.withLock { $0 = read }
        return read
    }

    /// Decoding thread: adds what `add` queued, if the decoder has no utterance open (a
    /// tentative part may be decoding between the vad's utterances); else it stays queued.
    /// Whether the decoder was changed (it then is not kept for later sessions).
    func addPending(to decoder: PocketSphinxDecoder, _ stage: LaggingStage, at time: Double) -> Bool {
        guard !decoder.inUtterance else { return false }
        let batches = pending.withLock { b in
            defer { b = [] }
            return b
        }
        guard !batches.isEmpty else { return false }
        let node = settings.nodeId, dict = settings.dict
        do {
            let phones = try modelPhones()
            var all: Vocabulary?
            for entries in batches {
                let v = try Vocabulary(entries: entries, phones: phones, known: decoder.knows,
                                       lookUp: { PronunciationDictionary.pronunciations(of: $0, in: dict) })
                all = all.map { $0.merged(with: v) } ?? v
                for w in v.skipped { stage.emit(.warning(node: node, message: w), at: time) }
            }
            if let all { try decoder.addVocabulary(all) }
        } catch {
            stage.emit(.warning(node: node, message: "the words from code were not added: \(error.message)"), at: time)
        }
        return true
    }
}
