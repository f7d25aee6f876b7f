import AudioGraphClient
import CPocketSphinx
import CPocketSphinxSupport
import Foundation
// The parsers are internal: fuzzing reaches them through a testable (debug) build only.
#if DEBUG
@testable import AudioGraph
@testable import AudioGraphCore
@testable import AudioGraphSpeech
@testable import AudioGraphServer

/// In-process fuzz targets for the parsers that take outside input: WAV headers (of files
/// and of pipes), graph files
/// (parse and validate), `--set` assignments, pronunciation dictionaries and acoustic model
/// definitions, the server's Wyoming framing and WebSocket messages, JSGF grammars (a
/// client's `grammar`, read by PocketSphinx), text a client asks to hear (flite).
/// `AG_FUZZ_TARGET` picks one: wav, wavstream, graph, set, dict, mdef, s3, wyoming, socket, jsgf, speak.
///
/// `Tools/fuzz` builds this with `-sanitize=fuzzer,address` (libFuzzer supplies `main`);
/// built plainly, it replays files given as arguments through the same target.
enum FuzzTargets {
    static let target = ProcessInfo.processInfo.environment["AG_FUZZ_TARGET"] ?? "wav"
    static let phones = ["AA", "AE", "AH", "B", "D", "SIL", "+NSN+"]
    static let registry = NodeRegistry.builtin

    static func run(_ bytes: UnsafeRawBufferPointer) {
        switch target {
        case "wav":
            _ = try? WAVHeader.parse(bytes)
        case "wavstream":
            // WAV piped in (`run --source -`): the header read as the pipe gives it, then the
            // samples in order; never more samples than the bytes hold, every one finite (float
            // WAV may hold samples past full scale).
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { return }
            _ = write(fds[1], bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, bytes.count)  // max_len < a pipe's buffer
            close(fds[1])
            defer { close(fds[0]) }
            guard let reader = try? WAVStreamReader(fd: fds[0], name: "fuzz") else { return }
            var samples = 0
            while let next = try? reader.next(), !next.isEmpty {
                samples += next.count
                if next.contains(where: { !$0.isFinite }) { fatalError("a sample that is not finite") }
            }
            if samples > bytes.count { fatalError("\(samples) samples from \(bytes.count) bytes") }
        case "graph":
            if let g = try? GraphFile.parse(Array(bytes), file: "fuzz.json") {
                _ = GraphValidator.validate(g, registry: registry)
            }
        case "set":
            var g = GraphDescription(name: "fuzz")
            g.addNode("a", type: "gain")
            g.addNode("v", type: "vad")
            g.addNode("r", type: "recognizer")
            g.connect("a", to: "v")
            g.connect("v", to: "r")
            if (try? GraphEdits.set(String(decoding: bytes, as: UTF8.self), in: &g, registry: registry)) != nil {
                _ = GraphValidator.validate(g, registry: registry)
            }
        case "dict":
            _ = try? PronunciationDictionary.check(ModelFileReader(path: "fuzz.dict", bytes: Data(bytes)), phones: phones)
        case "mdef":
            var r = ModelFileReader(path: "mdef", bytes: Data(bytes))
            _ = try? ModelDefinition(&r)
        case "s3":
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-s3-\(getpid())")
            try? Data(bytes).write(to: url)
            _ = try? S3ParameterFile.gaussians(url.path)
            _ = try? S3ParameterFile.transitions(url.path)
        case "wyoming":
            // Wyoming framing, cut in two at a point the input chooses (bytes arrive in any cut).
            var parser = WyomingParser(limit: 2048)
            let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
            parser.feed(bytes[0..<cut])
            while parser.next() != nil {}
            parser.feed(bytes[cut...])
            while parser.next() != nil {}
        case "socket":
            // A WebSocket text message as both protocols read it (audiograph's start, vosk's
            // config), an app-keys file, a query string.
            let text = String(decoding: bytes, as: UTF8.self)
            if case .success(let m) = PeerJSON.object(text.utf8) {
                _ = AppProtocol.startRequest(m)
                var config = VoskConfig()
                if let c = m["config"] as? [String: Any] ?? Optional(m), config.apply(c) != nil, config != VoskConfig() {
                    fatalError("a refused vosk config changed the config")
                }
            }
            _ = try? AppKeys(text: text)
            _ = WebSocketConnection.query(text)
        case "jsgf":
            // A grammar as the recognizer takes it (GrammarCheck), and the count that guards
            // PocketSphinx's building: where the text's count is within the limit, the raw
            // automaton PocketSphinx builds must be no larger (within a small slack: its odd
            // corners, an empty alternative or <VOID> among others, differ by a state or so;
            // what matters is that nothing multiplies).
            let text = String(decoding: bytes, as: UTF8.self)
            guard !text.utf8.contains(0) else { return }
            _ = try? GrammarCheck.examine(text: text, path: nil)
            guard let counted = try? GrammarSize.of(text),
                  max(counted.states, counted.arcs) <= GrammarCheck.mostStatesOrArcs else { return }
            ag_ps_capture_log()
            var fatal = false
            guard let built = GrammarAutomaton.raw(path: nil, text: text, fatal: &fatal),
                  !String(cString: ag_ps_last_error()).contains("\"jsgf.c\"") else { return }  // refused: an undefined rule
            let states = built.arcs.count - 2, arcs = built.arcs.reduce(0) { $0 + $1.count }
            if states > 2 * counted.states + 8 || arcs > 2 * counted.arcs + 8 {
                fatalError("PocketSphinx built \(states) states and \(arcs) arcs; GrammarSize counted \(counted.states) and \(counted.arcs)")
            }
        case "speak":
            // Text a client asks to hear (Wyoming synthesize, the app protocol's speak): the
            // first byte picks the voice and the rate; flite speaks the rest (its first 64
            // bytes: flite is slow, and what is spoken goes a sentence at a time anyway).
            guard let first = bytes.first else { return }
            let voice = Vocalizer.voices[Int(first) % Vocalizer.voices.count]
            let rate = [0.25, 0.5, 1, 1.7, 4][Int(first >> 4) % 5]
            _ = Vocalizer.speak(String(decoding: bytes.dropFirst().prefix(64), as: UTF8.self), voice: voice, rate: rate) { _ in true }
        default:
            fatalError("AG_FUZZ_TARGET: unknown target \(target) (wav, wavstream, graph, set, dict, mdef, s3, wyoming, socket, jsgf, speak)")
        }
    }
}

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTargets.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// SwiftPM links an executable's entry point under this name; libFuzzer's driver runs from it.
@_cdecl("audiograph_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzzOne)
}
#else
@main
enum Replay {
    /// Replays inputs (files given as arguments) through `AG_FUZZ_TARGET`, as a crash
    /// found by the fuzzer is checked again.
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let d = FileManager.default.contents(atPath: path) else { continue }
            d.withUnsafeBytes { FuzzTargets.run($0) }
        }
    }
}
#endif
#else
@main
enum Replay {
    static func main() {
        try? FileHandle.standardError.write(contentsOf: Data("audiograph-fuzz: a debug build only (Tools/fuzz)\n".utf8))
    }
}
#endif
