import AudioGraph
import Foundation

// The seed of a voice assistant, built on audiograph as a library: a restaurant finder over
// a small local list. Say "hello computer", wait for the tone, then e.g. "find japanese
// restaurants nearby"; it answers "I found 3 japanese restaurants nearby ..." aloud and
// listens for the wake word again. Ctrl-C cancels.
//
//   swift run audiograph-assistant                          (microphone and speaker)
//   swift run audiograph-assistant --source user.wav --sink answers.wav   (offline)

struct Restaurant {
    var name: String
    var cuisine: String
    var minutes: Int
}

let restaurants = [
    Restaurant(name: "Sakura", cuisine: "japanese", minutes: 4),
    Restaurant(name: "Ramen Ya", cuisine: "japanese", minutes: 9),
    Restaurant(name: "Kaiten", cuisine: "japanese", minutes: 12),
    Restaurant(name: "Trattoria Roma", cuisine: "italian", minutes: 6),
    Restaurant(name: "Luigi's", cuisine: "italian", minutes: 15),
    Restaurant(name: "Golden Dragon", cuisine: "chinese", minutes: 7),
    Restaurant(name: "Taj", cuisine: "indian", minutes: 10),
    Restaurant(name: "El Sol", cuisine: "mexican", minutes: 5),
    Restaurant(name: "Bangkok Garden", cuisine: "thai", minutes: 8),
    Restaurant(name: "Ichiran", cuisine: "ramen", minutes: 11),
    Restaurant(name: "Zaytoon", cuisine: "shawarma", minutes: 3),
]
let cuisines = ["japanese", "italian", "chinese", "indian", "mexican", "thai", "french", "korean", "ramen", "shawarma"]
/// Words of the grammar the model's dictionary lacks: the recognizer's vocabulary gives them a
/// pronunciation (flite's lexicon makes one).
let vocabulary = ["ramen", "shawarma"]

/// The commands it understands: a search with a cuisine slot.
let grammar = """
    #JSGF V1.0;
    grammar restaurants;
    public <search> = (find [me] | is there | are there | where can i get) [a | an | some | any] <cuisine>
                      [food | restaurant | restaurants] [nearby | near me | around here];
    <cuisine> = \(cuisines.joined(separator: " | "));
    """

/// What to say back for a recognised command.
func answer(_ text: String) -> String {
    guard let cuisine = text.split(separator: " ").map(String.init).first(where: cuisines.contains) else {
        return "Sorry, which kind of food?"
    }
    let found = restaurants.filter { $0.cuisine == cuisine }.sorted { $0.minutes < $1.minutes }
    guard let closest = found.first else { return "I found no \(cuisine) restaurants nearby." }
    let count = found.count == 1 ? "one \(cuisine) restaurant" : "\(found.count) \(cuisine) restaurants"
    return "I found \(count) nearby. The closest is \(closest.name), \(closest.minutes) minutes away."
}

/// `--source FILE` and `--sink FILE`, and whether anything else was given.
func options(_ arguments: [String]) -> (source: String?, sink: String?, rest: [String]) {
    var rest = arguments
    func take(_ name: String) -> String? {
        guard let i = rest.firstIndex(of: name), i + 1 < rest.count else { return nil }
        defer { rest.removeSubrange(i...i + 1) }
        return rest[i + 1]
    }
    let source = take("--source"), sink = take("--sink")
    return (source, sink, rest)
}
let (source, sink, rest) = options(Array(CommandLine.arguments.dropFirst()))
guard rest.isEmpty else {
    print("usage: audiograph-assistant [--source USER.wav] [--sink ANSWERS.wav]")
    exit(2)
}

let grammarFile = FileManager.default.temporaryDirectory.appendingPathComponent("restaurants-\(getpid()).gram")
do { try grammar.write(to: grammarFile, atomically: true, encoding: .utf8) } catch {
    try? FileHandle.standardError.write(contentsOf: Data("audiograph-assistant: cannot write \(grammarFile.path): \(error)\n".utf8))
    exit(1)
}
defer { try? FileManager.default.removeItem(at: grammarFile) }
let vocabularyFile = FileManager.default.temporaryDirectory.appendingPathComponent("restaurants-\(getpid()).words")
do { try (vocabulary.joined(separator: "\n") + "\n").write(to: vocabularyFile, atomically: true, encoding: .utf8) } catch {
    try? FileHandle.standardError.write(contentsOf: Data("audiograph-assistant: cannot write \(vocabularyFile.path): \(error)\n".utf8))
    exit(1)
}
defer { try? FileManager.default.removeItem(at: vocabularyFile) }

var graph = GraphDescription(name: "restaurant-finder")
if let source { graph.addNode("mic", type: "file-source", ["path": .string(source)]) } else { graph.addNode("mic", type: "pulse-source") }
graph.addNode("vad", type: "vad")
graph.addNode("eos", type: "end-of-speech", ["mode": "short", "complete": 0.25, "incomplete": 1.2, "no-speech-timeout": 0])
graph.addNode("asr", type: "recognizer", ["wake-word": "hello computer", "grammar": .string(grammarFile.path),
                                          "vocabulary": .string(vocabularyFile.path)])
graph.addNode("tts", type: "speech-synth", ["voice": "slt"])
if let sink { graph.addNode("speaker", type: "wav-sink", ["path": .string(sink)]) } else { graph.addNode("speaker", type: "pulse-sink") }
graph.connect("mic", to: "vad")       // converted to 16 kHz mono by the engine
graph.connect("vad", to: "eos")
graph.connect("eos", to: "asr")
graph.connect("tts", to: "speaker")   // converted to the speaker's format

do {
    let session = try RecognitionSession(graph: graph, options: .init())
    signal(SIGINT, SIG_IGN)
    let interrupt = DispatchSource.makeSignalSource(signal: SIGINT)
    interrupt.setEventHandler { try? session.cancel() }
    interrupt.resume()
    try session.start()
    print("say \"hello computer\", then what you are looking for (Ctrl-C ends)")
    for await event in session.events {
        switch (event, event.conversation?.event) {
        case (_, .assistant(.waitingForWakeWord, let reason, _)?):
            if reason == .noSpeech || reason == .notUnderstood || reason == .lost { print("(nothing understood)") }
        case (_, .wake?):
            print("listening…")
        case (.final(_, let r), _) where !r.text.isEmpty:
            print("heard: \(r.text)")
            let reply = answer(r.text)
            print("says:  \(reply)")
            Task { _ = try? await session.speak(reply) }
        case (.error(let e), _):
            try? FileHandle.standardError.write(contentsOf: Data("audiograph-assistant: \(e)\n".utf8))
        case (.end(let reason, _), _):
            print("ended: \(reason.rawValue)")
        default:
            break
        }
    }
} catch {
    try? FileHandle.standardError.write(contentsOf: Data("audiograph-assistant: \(error)\n".utf8))
    exit(1)
}
