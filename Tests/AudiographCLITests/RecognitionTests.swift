import AudioGraphTestSupport
import Foundation
import Testing

/// The real PocketSphinx decoder and model on flite speech, through the CLI.
@Suite struct RecognitionTests {
    func json(_ r: CLI.Result) -> [[String: Any]] {
        r.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func finals(_ r: CLI.Result) -> [[String: Any]] { json(r).filter { $0["type"] as? String == "final" } }

    @Test(.flite) func transcribesAFileWithWordTimesAlternativesAndConfidence() throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let r = try CLI.run(["run", "graphs/transcribe.json", "--source", wav.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let f = try #require(finals(r).first)
        #expect(f["text"] as? String == "go forward ten meters")
        let words = f["words"] as? [[String: Any]] ?? []
        #expect(words.map { $0["word"] as? String } == ["go", "forward", "ten", "meters"])
        let starts = words.compactMap { $0["start"] as? Double }
        #expect(starts == starts.sorted() && (starts.first ?? -1) >= 0)
        #expect(words.allSatisfy { (0...1).contains($0["confidence"] as? Double ?? -1) })
        let alts = f["alternatives"] as? [[String: Any]] ?? []
        #expect(alts.first?["text"] as? String == "go forward ten meters" && alts.count >= 2)
        #expect((0...1).contains(f["confidence"] as? Double ?? -1))
        let types = json(r).compactMap { $0["type"] as? String }
        #expect(types.firstIndex(of: "speech-start")! < types.firstIndex(of: "final")!)
        #expect(types.last == "end")
    }

    /// The utterance confidence (the expected fraction of right words) falls when the same
    /// words are drowned in white noise at about 0 dB SNR.
    @Test(.flite) func confidenceFallsInNoise() throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let clean = try WAVFixture.read(wav)
        let peak = clean.samples.map { abs(Int($0)) }.max() ?? 0
        let noise = WAVFixture.noise(count: clean.samples.count, bits: 16)
        let noisy = zip(clean.samples, noise).map { Int32(max(-32768, min(32767, Int($0) / 2 + Int($1) * peak / 4 / 32768))) }
        let noisyURL = CLI.tempDir().appendingPathComponent("noisy.wav")
        try WAVFixture.write(noisyURL, rate: clean.rate, channels: 1, bits: 16, samples: noisy)
        func confidence(_ url: URL) throws -> Double? {
            let r = try CLI.run(["run", "graphs/transcribe.json", "--source", url.path, "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            let f = finals(r).filter { !($0["words"] as? [Any] ?? []).isEmpty }
            guard !f.isEmpty else { return nil }
            return f.compactMap { $0["confidence"] as? Double }.reduce(0, +) / Double(f.count)
        }
        let c = try #require(try confidence(wav))
        #expect(c > 0.6, "clean speech, recognised right: confidence \(c)")
        if let n = try confidence(noisyURL) { #expect(n < c - 0.1, "in noise \(n), clean \(c)") }
    }

    @Test(.flite) func partialsComeBeforeTheFinalOfTheirUtterance() throws {
        let wav = try #require(Flite.speech("find japanese restaurants nearby"))
        let r = try CLI.run(["run", "graphs/transcribe.json", "--source", wav.path, "--json", "--set", "asr.partials=0.1"])
        let events = json(r)
        let partials = events.indices.filter { events[$0]["type"] as? String == "partial" }
        let final = try #require(events.firstIndex { $0["type"] as? String == "final" })
        #expect(!partials.isEmpty && partials.allSatisfy { $0 < final })
        #expect(partials.allSatisfy { events[$0]["utterance"] as? Int == 1 })
    }

    @Test(.flite) func commandGrammarEndsAtTheEndOfSpeech() throws {
        for phrase in ["find japanese restaurants nearby", "status of flight l x forty", "go forward ten meters"] {
            let wav = try #require(Flite.speech(phrase))
            let r = try CLI.run(["run", "graphs/command.json", "--source", wav.path, "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(finals(r).first?["text"] as? String == phrase)
            #expect(json(r).last?["reason"] as? String == "end-of-speech")
        }
        // Words the grammar does not have: a final with no words, which the terminal says so
        // (it printed an empty text and "(confidence 0.00)").
        let outside = try #require(Flite.speech("what time is it"))
        let r = try CLI.run(["run", "graphs/command.json", "--source", outside.path])
        #expect(r.status == 0 && r.stdoutLines.count == 1 && r.stdout.hasSuffix("[1] (no words)\n"), "\(r.stdout)")
    }

    /// The single live pass (final=live), with the utterance's cepstral mean measured as it
    /// goes, recognises clear speech with at most one word wrong, in one final.
    @Test(.flite, arguments: ["go forward ten meters", "find japanese restaurants nearby"])
    func singleLivePassRecognises(phrase: String) throws {
        let wav = try #require(Flite.speech(phrase))
        let r = try CLI.run(["run", "graphs/dictation.json", "--source", wav.path, "--json", "--set", "asr.final=live"])
        #expect(r.status == 0, "\(r.stderr)")
        let f = finals(r)
        let text = f.first?["text"] as? String ?? ""
        #expect(f.count == 1 && wordErrors(text, phrase.split(separator: " ").map(String.init)) <= 1, "\(f)")
    }

    /// Word times stay on the stream's clock from utterance to utterance (the decoder counts
    /// frames across utterances; each word must fall inside its own utterance).
    @Test(.flite, arguments: ["graphs/transcribe.json", "graphs/dictation.json"])
    func wordTimesFallInsideTheirUtterance(graph: String) throws {
        let phrases = ["go forward ten meters", "find japanese restaurants nearby", "turn left at the corner"]
        let parts = phrases.compactMap { Flite.speech($0) }
        try #require(parts.count == 3)
        // The three phrases, each with 0.5 s of silence before and 2 s after (flite: 16 kHz mono).
        var samples: [Int32] = []
        for part in parts {
            let w = try WAVFixture.read(part)
            samples += Array(repeating: 0, count: w.rate / 2) + w.samples + Array(repeating: 0, count: 2 * w.rate)
        }
        let joined = CLI.tempDir().appendingPathComponent("three.wav")
        try WAVFixture.write(joined, rate: 16000, channels: 1, bits: 16, samples: samples)
        let r = try CLI.run(["run", graph, "--source", joined.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let f = finals(r)
        #expect(f.count == 3, "\(f.map { $0["text"] ?? "" })")
        var last = -1.0
        for u in f {
            let start = u["start"] as? Double ?? -1, end = u["end"] as? Double ?? -1
            for w in u["words"] as? [[String: Any]] ?? [] {
                let ws = w["start"] as? Double ?? -1, we = w["end"] as? Double ?? -1
                #expect(ws >= start - 0.3 && we <= end + 0.3 && ws >= last - 0.01,
                        "\(w["word"] ?? "") at \(ws)-\(we) in utterance \(start)-\(end)")
                last = ws
            }
        }
    }

    /// A pause longer than the vad's hangover but inside the end-of-speech window: the
    /// decoder closes its utterance in the pause (so the final is ready when the window
    /// elapses) and decodes the resumed speech as a second part of the same utterance.
    @Test(.flite) func aPauseInsideTheWindowStaysOneUtteranceDecodedInParts() throws {
        let phrases = ["go forward ten meters", "find japanese restaurants nearby"]
        let parts = phrases.compactMap { Flite.speech($0) }
        try #require(parts.count == 2)
        let first = try WAVFixture.read(parts[0]), second = try WAVFixture.read(parts[1])
        let pause = Array(repeating: Int32(0), count: first.rate * 8 / 10)  // 0.8 s < long mode's 1.2 s
        let lead = Array(repeating: Int32(0), count: first.rate / 2)
        let joined = CLI.tempDir().appendingPathComponent("paused.wav")
        try WAVFixture.write(joined, rate: first.rate, channels: 1, bits: 16,
                             samples: lead + first.samples + pause + second.samples + lead + lead)
        let r = try CLI.run(["run", "graphs/dictation.json", "--source", joined.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let events = json(r)
        #expect(events.filter { $0["type"] as? String == "speech-end" }.count == 2, "the vad hears the pause")
        let f = finals(r)
        try #require(f.count == 1, "\(f.map { $0["text"] ?? "" })")
        let text = f[0]["text"] as? String ?? ""
        #expect(wordErrors(text, (phrases[0] + " " + phrases[1]).split(separator: " ").map(String.init)) <= 1, "\(text)")
        // Words of both parts in order, the second part's after the pause.
        let words = f[0]["words"] as? [[String: Any]] ?? []
        let starts = words.compactMap { $0["start"] as? Double }
        #expect(starts == starts.sorted())
        let pauseEnd = Double(lead.count + first.samples.count + pause.count) / Double(first.rate)
        let find = words.first { $0["word"] as? String == "find" }?["start"] as? Double ?? 0
        #expect(abs(find - pauseEnd) < 0.3, "find at \(find), speech resumed at \(pauseEnd)")
        // Partials of the second part carry the first part's text; alternatives too.
        let lastPartial = events.last { $0["type"] as? String == "partial" }?["text"] as? String ?? ""
        #expect(lastPartial.hasPrefix("go forward") && lastPartial.contains("restaurants"), "\(lastPartial)")
        let alternatives = f[0]["alternatives"] as? [[String: Any]] ?? []
        #expect(!alternatives.isEmpty && alternatives.allSatisfy { ($0["text"] as? String ?? "").hasPrefix("go forward") })
    }

    /// A grammar wants the whole sentence in one search: a pause inside a command does not
    /// split its decoding, even with a live final pass.
    @Test(.flite) func aPauseInsideACommandKeepsTheGrammarSentenceWhole() throws {
        let head = try #require(Flite.speech("find japanese restaurants")), tail = try #require(Flite.speech("nearby"))
        let a = try WAVFixture.read(head), b = try WAVFixture.read(tail)
        let pause = Array(repeating: Int32(0), count: a.rate * 8 / 10), lead = Array(repeating: Int32(0), count: a.rate / 2)
        let joined = CLI.tempDir().appendingPathComponent("command-paused.wav")
        try WAVFixture.write(joined, rate: a.rate, channels: 1, bits: 16, samples: lead + a.samples + pause + b.samples + lead)
        let r = try CLI.run(["run", "graphs/command.json", "--source", joined.path, "--json",
                             "--set", "asr.final=live", "--set", "eos.complete=1.2", "--set", "eos.incomplete=1.2"])
        #expect(r.status == 0, "\(r.stderr)")
        let f = finals(r).compactMap { $0["text"] as? String }
        #expect(f.count == 1 && f[0].hasPrefix("find") && f[0].hasSuffix("japanese restaurants nearby"), "\(f)")
    }

    /// Each utterance's first word starts where its speech starts (PocketSphinx's own
    /// silence removal, when on, leaves frames out of its count and shifted words by up to 2 s).
    @Test(.flite) func firstWordsStartWithTheirSpeech() throws {
        let phrases = ["go forward ten meters", "find japanese restaurants nearby", "turn left at the corner"]
        let parts = phrases.compactMap { Flite.speech($0) }
        try #require(parts.count == 3)
        var samples: [Int32] = [], onsets: [Double] = []
        for (i, part) in parts.enumerated() {
            let w = try WAVFixture.read(part)
            samples += Array(repeating: 0, count: w.rate * (i == 0 ? 1 : 2) / 10)  // little silence before the first
            let loud = w.samples.firstIndex { abs($0) > 1000 } ?? 0
            onsets.append(Double(samples.count + loud) / Double(w.rate))
            samples += w.samples + Array(repeating: 0, count: 2 * w.rate)
        }
        let joined = CLI.tempDir().appendingPathComponent("onsets.wav")
        try WAVFixture.write(joined, rate: 16000, channels: 1, bits: 16, samples: samples)
        let r = try CLI.run(["run", "graphs/dictation.json", "--source", joined.path, "--json"])
        let f = finals(r)
        try #require(f.count == 3, "\(f.map { $0["text"] ?? "" })")
        for (u, onset) in zip(f, onsets) {
            let first = (u["words"] as? [[String: Any]])?.first?["start"] as? Double ?? -1
            #expect(abs(first - onset) < 0.15, "first word at \(first), speech from \(onset)")
        }
    }

    /// Each time the phrase is said it is a final, when its stretch of speech ends. Before,
    /// the graph had no detector: the whole stream was one utterance, so a live run showed
    /// nothing until it was stopped, and kept all its audio for that one final (64 kB a second).
    @Test(.flite) func keyphraseIsSpottedEachTimeAsItIsSaid() throws {
        let wav = try #require(Flite.script([("hello computer", 2), ("what time is it", 2), ("hello computer", 1)]))
        let r = try CLI.run(["run", "graphs/wakeword.json", "--source", wav.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let f = finals(r).map { $0["text"] as? String ?? "" }
        #expect(f == ["hello computer", "", "hello computer"], "\(f)")
        let types = r.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.compactMap { $0["type"] as? String }
        let firstFinal = types.firstIndex(of: "final") ?? types.count
        #expect(types[..<firstFinal].filter { $0 == "speech-start" }.count == 1, "the first final came after the first stretch: \(types)")
    }

    @Test(.flite) func otherRatesAndChannelsGiveTheSameWords() throws {
        // Each file through the engine's own conversion gives the words of its 16 kHz mono
        // conversion by sox. (8 kHz flite speech is too ambiguous for the model to compare
        // stably; the corpus's 8 kHz recording is measured in the WER benchmark.)
        let wav = try #require(Flite.speech("go forward ten meters"))
        let a = try #require(Flite.convert(wav, rate: 44100, channels: 2)), b = try #require(Flite.convert(wav, rate: 48000, channels: 1))
        for f in [a, b] {
            let reference = try #require(Flite.convert(f, rate: 16000, channels: 1))
            let ours = finals(try CLI.run(["run", "graphs/transcribe.json", "--source", f.path, "--json"])).map { $0["text"] as? String }
            let theirs = finals(try CLI.run(["run", "graphs/transcribe.json", "--source", reference.path, "--json"])).map { $0["text"] as? String }
            #expect(ours == theirs, "\(f.lastPathComponent): \(ours) vs \(theirs)")
        }
        let direct = finals(try CLI.run(["run", "graphs/transcribe.json", "--source", a.path, "--json"]))
        #expect(direct.first?["text"] as? String == "go forward ten meters")
    }

    @Test(.flite, .sharedCorpus) func corpusFilesAtTheirOwnRatesMatchTheir16kConversions() throws {
        let corpus = CLI.sharedCorpus
        // Words of the file at its own rate (engine conversion) vs its 16 kHz mono conversion
        // by sox: resamplers differ in the last bits, so the decoder may differ on a word;
        // the engine's path must be no worse against the reference transcript.
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: corpus.appendingPathComponent("manifest.json"))) as? [[String: Any]] ?? []
        for name in ["speechrec_one_two_three_stereo.wav", "alsa_Front_Center.wav", "ljspeech_LJ001-0002.wav",
                     "osr_us_000_0034_8k.wav"] {
            // The 35 s telephone recording: its first 10 s (three sentences), kept at 8 kHz.
            let long = name.hasPrefix("osr")
            let full = corpus.appendingPathComponent(name)
            let original = try #require(long ? Flite.convert(full, rate: 8000, channels: 1, seconds: 10) : full)
            var reference = (manifest.first { $0["file"] as? String == name }?["transcript"] as? String ?? "").split(separator: " ").map(String.init)
            if long { reference = Array(reference.prefix(23)) }  // up to "neighbor's house"
            let converted = try #require(Flite.convert(original, rate: 16000, channels: 1))
            let a = finals(try CLI.run(["run", "graphs/dictation.json", "--source", original.path, "--json", "--set", "asr.partials=0"])).compactMap { $0["text"] as? String }
            let b = finals(try CLI.run(["run", "graphs/dictation.json", "--source", converted.path, "--json", "--set", "asr.partials=0"])).compactMap { $0["text"] as? String }
            let ours = wordErrors(a.joined(separator: " "), reference), theirs = wordErrors(b.joined(separator: " "), reference)
            #expect(ours <= theirs + max(1, reference.count / 10), "\(name): \(a) (\(ours) errors) vs \(b) (\(theirs))")
        }
    }

    /// Word-level edit distance.
    func wordErrors(_ hypothesis: String, _ reference: [String]) -> Int {
        let h = hypothesis.split(separator: " ").map(String.init)
        var row = Array(0...h.count)
        for r in reference {
            var previous = row[0]
            row[0] += 1
            for j in 1...max(h.count, 1) where j <= h.count {
                let old = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (h[j - 1] == r ? 0 : 1))
                previous = old
            }
        }
        return row[h.count]
    }

    @Test(.flite) func stopDeliversTheFinal() throws {
        let wav = try #require(Flite.speech("go forward ten meters and then turn left at the second corner"))
        // Ctrl-C once the second word shows in a partial (no timing assumptions).
        let stopped = try CLI.run(["run", "graphs/transcribe.json", "--source", wav.path, "--json", "--realtime",
                                   "--set", "eos.mode=none", "--set", "asr.partials=0.25"], interruptWhen: { out in
            out.split(separator: "\n").contains { $0.contains("\"partial\"") && $0.contains("go ") }
        })
        #expect(json(stopped).last?["reason"] as? String == "stopped")
        let text = finals(stopped).first?["text"] as? String ?? ""
        #expect(text.hasPrefix("go") && text.split(separator: " ").count >= 2, "what was said before stop is delivered: \(text)")
        #expect(!text.contains("corner"), "stopped before the end")
    }

    @Test(.flite) func badModelGrammarAndKeyphraseAreClearErrors() throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let dir = CLI.tempDir()
        let missing = try CLI.run(["run", "graphs/transcribe.json", "--source", wav.path, "--set", "asr.hmm=/nonexistent/model"])
        #expect(missing.status == 2 && missing.stderrLines.count == 1)
        #expect(missing.stderr.contains("node \"asr\": parameter \"hmm\": /nonexistent/model: no such model directory"))
        let gram = dir.appendingPathComponent("bad.gram")
        try "#JSGF V1.0;\ngrammar bad;\npublic <cmd> = go forward (ten | ;\n".write(to: gram, atomically: true, encoding: .utf8)
        let bad = try CLI.run(["run", "graphs/command.json", "--source", wav.path, "--set", "asr.grammar=\(gram.path)"])
        #expect(bad.status == 2 && bad.stderrLines.count == 1, "\(bad.stderr)")
        #expect(bad.stderr.contains("parameter \"grammar\"") && bad.stderr.contains("line 3"), "\(bad.stderr)")
        // PocketSphinx's grammar scanner echoes what it cannot read to C's stdout ("=go;"),
        // which ended up after `--json`'s lines, unterminated: nothing but events goes there.
        try "#JSGF V1.0;\ngrammar g;\n= go;\npublic <cmd> = stop;\n".write(to: gram, atomically: true, encoding: .utf8)
        let echoed = try CLI.run(["run", "graphs/command.json", "--source", wav.path, "--set", "asr.grammar=\(gram.path)", "--json"])
        #expect(echoed.status == 2 && echoed.stdout.isEmpty && echoed.stderr.contains("line 3"), "stdout \(echoed.stdout): \(echoed.stderr)")
        let checked = try CLI.run(["validate", "graphs/command.json", "--set", "asr.grammar=\(gram.path)"])
        #expect(checked.status == 2 && checked.stdout.isEmpty, "stdout \(checked.stdout)")
        // Grammars PocketSphinx builds with a warning and a search that never says a word, and
        // one it would end the process on (a weight over 1 on an empty arc).
        // And grammars too large or too slow to search (README: Grammars that cannot be searched).
        let chain = (0..<150).map { "[\(["go", "stop", "left", "right", "home"][$0 % 5])]" }.joined(separator: " ")
        for (rule, says) in [("<cmd> go", "right-recursion"), ("go <missing>", "Undefined rule"), ("<VOID>", "no sentence of words"),
                             ("go" + String(repeating: "+", count: 24), "expands to about"), ("go+++++", "copies of \"go\""),
                             (chain, "empty arcs join"), ("/2/ <NULL> | go", "Null transition prob must be <= 1.0")] {
            try "#JSGF V1.0;\ngrammar g;\npublic <cmd> = \(rule);\n".write(to: gram, atomically: true, encoding: .utf8)
            let r = try CLI.run(["run", "graphs/command.json", "--source", wav.path, "--set", "asr.grammar=\(gram.path)"])
            #expect(r.status == 2 && r.stderrLines.count == 1 && r.stderr.contains("parameter \"grammar\"")
                    && r.stderr.contains(says), "\(rule): \(r.stderr)")
        }
        let both = try CLI.run(["validate", "graphs/command.json", "--source", wav.path, "--set", "asr.keyphrase=hello computer"])
        #expect(both.status == 2 && both.stderrLines.count == 1, "\(both.stderr)")
        #expect(both.stderr.contains("node \"asr\": parameter \"keyphrase\": give either a grammar or a keyphrase"), "\(both.stderr)")
        let oov = try CLI.run(["run", "graphs/wakeword.json", "--source", wav.path, "--set", "asr.keyphrase=hello zzyzxq"])
        #expect(oov.status == 2 && oov.stderrLines.count == 1, "\(oov.stderr)")
        #expect(oov.stderr.contains("zzyzxq"), "\(oov.stderr)")
    }
}
