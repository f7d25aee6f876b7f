import AudioGraphTestSupport
import Foundation
import Testing

/// `pulse-source`, `pulse-sink` and `devices` against a real PulseAudio daemon: the private
/// one Tools/test starts (PULSE_SERVER, with a pipe source fed through AG_PULSE_PIPE and a
/// null sink). Skipped with a one-line reason when no daemon is reachable.
@Suite(.serialized) struct PulseIntegrationTests {
    static let env = ProcessInfo.processInfo.environment
    static var pipe: String? { env["AG_PULSE_PIPE"] }

    /// Whether the test daemon is there; prints the skip reason if not.
    static func daemon() -> Bool {
        guard env["PULSE_SERVER"] != nil, let pipe, FileManager.default.fileExists(atPath: pipe) else {
            print("skipped: no private PulseAudio daemon (run the suite with Tools/test)")
            return false
        }
        return true
    }

    /// Writes 16 kHz mono s16 samples into a pipe source, in real-time-sized chunks.
    static func feed(_ samples: [Int16], to pipe: String, after delay: Double = 0.6, chunk: Int = 3200) {
        usleep(UInt32(delay * 1e6))
        guard let h = FileHandle(forWritingAtPath: pipe) else { return }
        let data = samples.withUnsafeBufferPointer { Data(buffer: $0) }
        var offset = 0
        while offset < data.count {
            let n = min(chunk, data.count - offset)
            h.write(data.subdata(in: offset..<offset + n))
            offset += n
            usleep(100_000)
        }
        try? h.close()
    }

    static func graph(_ text: String) throws -> URL {
        let f = CLI.tempDir().appendingPathComponent("g.json")
        try text.write(to: f, atomically: true, encoding: .utf8)
        return f
    }

    /// Runs `body` while `audiograph run` records the test sink's monitor (what was played)
    /// to `wav`; the recording is stopped, whole, before this returns.
    static func recordingMonitor<T>(to wav: URL, _ body: () throws -> T) throws -> T {
        let g = try graph("""
            {"nodes": [{"id": "mon", "type": "pulse-source", "params": {"device": "agtest_sink.monitor"}},
                       {"id": "out", "type": "wav-sink", "params": {"path": "\(wav.path)"}}],
             "connections": [{"from": "mon", "to": "out"}]}
            """)
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["run", g.path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer {
            p.interrupt()
            p.waitUntilExit()
            if p.terminationStatus != 0 { Issue.record("the monitor's recorder ended with status \(p.terminationStatus)") }
        }
        return try body()
    }

    /// Lets `pid` run again `seconds` after it has been stopped (SIGSTOP), on a thread of its
    /// own; gives up when the process ends first.
    static func resume(_ pid: Int32, stoppedFor seconds: Double) {
        Thread {
            while let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") {
                // The state follows the command's name: "pid (name) T ...".
                if stat[close...].dropFirst(2).first == "T" {
                    usleep(UInt32(seconds * 1e6))
                    kill(pid, SIGCONT)
                    return
                }
                usleep(5000)
            }
        }.start()
    }

    /// A recognisable, non-periodic test signal.
    static func signal(seconds: Double) -> [Int16] {
        var s: UInt32 = 12345
        return (0..<Int(seconds * 16000)).map { i in
            s = s &* 1_103_515_245 &+ 12345
            return Int16(truncatingIfNeeded: Int(sin(Double(i) * 0.05) * 8000) + Int(s >> 20) - 2048)
        }
    }

    /// The level of a 1 kHz tone in `samples` at `rate`: the median over 10 ms windows (ten
    /// whole periods each) of the amplitude at 1 kHz, so a moment a feeder or a loaded machine
    /// falls behind (a gap, a phase jump) spoils a few windows, not the measured level.
    static func toneLevel(_ samples: [Double], rate: Double) -> Double {
        let window = Int(rate / 100)
        var levels: [Double] = []
        for w in stride(from: 0, through: samples.count - window, by: window) {
            var c = 0.0, s = 0.0
            for k in 0..<window {
                c += samples[w + k] * cos(2 * .pi * 1000 * Double(k) / rate)
                s += samples[w + k] * sin(2 * .pi * 1000 * Double(k) / rate)
            }
            levels.append(2 * (c * c + s * s).squareRoot() / Double(window))
        }
        return levels.isEmpty ? 0 : levels.sorted()[levels.count / 2]
    }

    @Test(.pulseDaemon) func devicesListsTheDaemonsSourceAndSink() throws {
        let r = try CLI.run(["devices", "--json"])
        #expect(r.status == 0)
        #expect(r.stdout.contains(#""type":"source","name":"agtest_pipe""#))
        #expect(r.stdout.contains(#""type":"sink","name":"agtest_sink""#))
        #expect(r.stdout.contains(#""name":"agtest_sink.monitor""#))
        let text = try CLI.run(["devices"])
        #expect(text.stdout.contains("* agtest_pipe"))
    }

    /// A device's description is the device's to choose (a Bluetooth one names itself): an
    /// escape sequence in it is shown, not sent to the terminal (a module argument cannot hold
    /// a newline).
    @Test(.pulseDaemon) func aDeviceNamedWithControlCharactersIsListedVisibly() throws {
        func pactl(_ args: [String]) throws -> String {
            let p = Process(), out = Pipe()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
            p.arguments = args
            p.standardOutput = out
            try p.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let module = try pactl(["load-module", "module-null-sink", "sink_name=agtest_named",
                                "sink_properties=device.description='Speaker\u{1B}[2J'"])
        try #require(Int(module) != nil, "pactl load-module: \(module)")
        defer { _ = try? pactl(["unload-module", module]) }
        let r = try CLI.run(["devices"])
        #expect(r.status == 0)
        let line = r.stdoutLines.first { $0.contains("agtest_named ") }
        #expect(line?.hasSuffix("Speaker\\u{1B}[2J") == true, "\(r.stdout)")
        #expect(!r.stdout.unicodeScalars.contains("\u{1B}"))
    }

    @Test(.flite, .pulseDaemon) func captureArrivesCompleteAndSampleExact() throws {
        let pipe = try #require(Self.pipe)
        let out = CLI.tempDir().appendingPathComponent("cap.wav")
        let g = try Self.graph("""
            {"nodes": [{"id": "mic", "type": "pulse-source", "params": {"device": "agtest_pipe"}},
                       {"id": "out", "type": "wav-sink", "params": {"path": "\(out.path)"}}],
             "connections": [{"from": "mic", "to": "out"}]}
            """)
        // A recorded utterance (the corpus's 16 kHz mono recording where present, else flite
        // speech), in the pipe's own format.
        let corpusFile = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/ps_goforward.wav")
        let speech = try #require(FileManager.default.fileExists(atPath: corpusFile.path) ? corpusFile
            : Flite.speech("go forward ten meters").flatMap { Flite.convert($0, rate: 16000, channels: 1) })
        let sent = try WAVFixture.read(speech).samples.map { Int16($0) }
        let r = try CLI.run(["run", g.path, "--json"], interruptAfter: [Double(sent.count) / 16000 + 2.5],
                            during: { Self.feed(sent, to: pipe) })
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#""type":"device","node":"mic","name":"agtest_pipe","rate":16000,"channels":1"#))
        let got = try WAVFixture.read(out).samples.map { Int16($0) }
        // Locate it by its loudest stretch (speech may begin with silence, as the idle pipe does).
        let loudest = sent.indices.max { abs(Int(sent[$0])) < abs(Int(sent[$1])) }!
        let window = Array(sent[loudest..<min(sent.count, loudest + 32)])
        if Self.env["AG_SOUND_SERVER"] == "pipewire" {
            // PipeWire runs its graph at 48 kHz (the pipe's 16 kHz is resampled twice) and
            // its pipe source may insert gaps of silence (seen in 2 of 5 runs): the recording
            // arrives whole, nothing dropped, but neither sample for sample nor in one piece.
            let s = Self.closest(window, in: got) - loudest
            #expect(s >= 0, "the recording arrived")
            let energy: ([Int16]) -> Double = { $0.reduce(0.0) { $0 + Double($1) * Double($1) } }
            let ratio = energy(got) / energy(sent)
            #expect(ratio > 0.9 && ratio < 1.15, "energy captured / sent \(ratio)")
            return
        }
        let at = try #require(Self.find(window, in: got), "the recording arrived")
        let s = at - loudest
        #expect(s >= 0 && s + sent.count <= got.count && got[s..<s + sent.count].elementsEqual(sent),
                "every sample, in order")
    }

    /// The terminal shows one line per device, with the figures the server reports once the
    /// stream runs (not the latency asked for, then another).
    @Test(.pulseDaemon) func oneDeviceLineOnTheTerminal() throws {
        let pipe = try #require(Self.pipe)
        let g = try Self.graph("""
            {"nodes": [{"id": "mic", "type": "pulse-source", "params": {"device": "agtest_pipe"}},
                       {"id": "out", "type": "null-sink"}],
             "connections": [{"from": "mic", "to": "out"}]}
            """)
        let r = try CLI.run(["run", g.path], interruptAfter: [2.5], during: { Self.feed(Self.signal(seconds: 2), to: pipe) })
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderrLines.filter { $0.contains("node \"mic\": agtest_pipe") }
        #expect(lines.count == 1, "\(r.stderr)")
        let json = try CLI.run(["run", g.path, "--json"], interruptAfter: [2.5], during: { Self.feed(Self.signal(seconds: 2), to: pipe) })
        #expect(json.stdoutLines.filter { $0.contains(#""type":"device""#) }.count == 2, "--json keeps both: as opened, as running")
    }

    @Test(.pulseDaemon) func captureAtAnotherRateIsConverted() throws {
        let pipe = try #require(Self.pipe)
        let out = CLI.tempDir().appendingPathComponent("cap48.wav")
        let g = try Self.graph("""
            {"nodes": [{"id": "mic", "type": "pulse-source", "params": {"device": "agtest_pipe", "rate": 48000, "channels": 2}},
                       {"id": "out", "type": "wav-sink", "params": {"path": "\(out.path)"}}],
             "connections": [{"from": "mic", "to": "out"}]}
            """)
        let tone = (0..<24000).map { Int16(8000 * sin(2 * Double.pi * 1000 * Double($0) / 16000)) }
        // PipeWire's pipe source plays silence whenever its pipe is momentarily empty: one
        // write (the pipe then paces it) keeps the tone whole.
        let chunk = Self.env["AG_SOUND_SERVER"] == "pipewire" ? tone.count * 2 : 3200
        let r = try CLI.run(["run", g.path], interruptAfter: [3.0], during: { Self.feed(tone, to: pipe, chunk: chunk) })
        #expect(r.status == 0, "\(r.stderr)")
        let back = try WAVFixture.read(out)
        #expect(back.rate == 48000 && back.channels == 2)
        let left = stride(from: 0, to: back.samples.count, by: 2).map { Float(back.samples[$0]) / 32768 }
        let loud = left.indices.filter { abs(left[$0]) > 0.1 }
        let start = (loud.first ?? 0) + 4800
        let slice = left[start..<min(start + 48000, left.count)].map(Double.init)
        try #require(slice.count >= 24000, "\(slice.count) samples of tone")
        // 1 kHz at 8000/32768 amplitude, within conversion error.
        let amplitude = Self.toneLevel(slice, rate: 48000)
        if Self.env["AG_SOUND_SERVER"] == "pipewire" {
            // PipeWire's pipe source can leave gaps of silence in a pipe-fed tone (seen in 2 of
            // 5 runs): the tone is there at 1 kHz, never louder than sent.
            #expect(amplitude > 0.05 && amplitude < 8000.0 / 32768 + 0.01, "amplitude \(amplitude)")
        } else {
            #expect(abs(amplitude - 8000.0 / 32768) < 0.01, "amplitude \(amplitude)")
        }
    }

    @Test(.pulseDaemon) func playbackComesBackThroughTheMonitor() throws {
        let captured = CLI.tempDir().appendingPathComponent("monitor.wav")
        let play = try Self.graph("""
            {"nodes": [{"id": "tone", "type": "test-signal", "params": {"frequency": 440, "level": -12, "rate": 48000, "channels": 2, "duration": 1.5}},
                       {"id": "spk", "type": "pulse-sink", "params": {"device": "agtest_sink"}}],
             "connections": [{"from": "tone", "to": "spk"}]}
            """)
        let r = try Self.recordingMonitor(to: captured) {
            usleep(500_000)  // the recorder is listening
            defer { usleep(300_000) }  // the tone's end reaches the recording
            return try CLI.run(["run", play.path])
        }
        #expect(r.status == 0, "\(r.stderr)")
        // The run ends once the server has played the tone: silence written after the last
        // block kept its buffer full and the drain waited out its 5 s, then warned.
        #expect(!r.stderr.contains("warning"), "\(r.stderr)")
        let back = try WAVFixture.read(captured)
        let left = stride(from: 0, to: back.samples.count, by: back.channels).map { Float(back.samples[$0]) / 32768 }
        let peak = left.map(abs).max() ?? 0
        #expect(abs(Double(peak) - pow(10, -12.0 / 20)) < 0.02, "the tone comes back at its level: peak \(peak)")
        let loud = left.filter { abs($0) > 0.05 }.count
        #expect(abs(Double(loud) / 48000 - 1.5 * 0.78) < 0.3, "about 1.5 s of tone came back")
    }

    @Test(.pulseDaemon) func playbackThatRunsDryReportsUnderruns() throws {
        let play = try Self.graph("""
            {"nodes": [{"id": "tone", "type": "test-signal", "params": {"frequency": 440, "level": -12, "rate": 48000, "channels": 2, "duration": 2.5}},
                       {"id": "meter", "type": "level-meter", "params": {"interval": 0.25}},
                       {"id": "spk", "type": "pulse-sink", "params": {"device": "agtest_sink", "latency": 0.02}}],
             "connections": [{"from": "tone", "to": "meter"}, {"from": "meter", "to": "spk"}]}
            """)
        // Freeze the player mid-playback (as a stalled machine would): the server's buffer
        // runs dry, and the player must say so once it runs again. It is frozen once it has
        // rendered 0.75 s (its third level report): with file input it renders at most its
        // 0.5 s ring ahead of what plays, so playback has begun however slowly it started.
        let r = try CLI.run(["run", play.path, "--json"], signal: SIGSTOP, timeout: 20,
                            interruptWhen: { $0.components(separatedBy: #""type":"level""#).count > 3 },
                            started: { Self.resume($0, stoppedFor: 0.6) })
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#""type":"underrun","node":"spk""#), "\(r.stdout)")
        #expect(r.stderr.contains("audiograph: audio lost: node \"spk\""), "\(r.stderr)")
    }

    @Test(.pulseDaemon) func unknownDeviceNamesItAndListsTheSources() throws {
        let g = try Self.graph("""
            {"nodes": [{"id": "mic", "type": "pulse-source", "params": {"device": "no-such-mic"}}, {"id": "o", "type": "null-sink"}],
             "connections": [{"from": "mic", "to": "o"}]}
            """)
        let r = try CLI.run(["run", g.path])
        #expect(r.status == 1)
        #expect(r.stderrLines.count == 1)
        #expect(r.stderr.contains("node \"mic\": parameter \"device\"") && r.stderr.contains("no source named \"no-such-mic\"")
                && r.stderr.contains("agtest_pipe"), "\(r.stderr)")
    }

    @Test func noServerIsOneClearLine() throws {
        let r = try CLI.run(["run", "graphs/dictation.json"], environment: ["PULSE_SERVER": "unix:/nonexistent/pulse"])
        #expect(r.status == 1)
        #expect(r.stderrLines.count == 1)
        #expect(r.stderr.contains("cannot connect to unix:/nonexistent/pulse") && r.stderr.contains("--source FILE"), "\(r.stderr)")
        let d = try CLI.run(["devices"], environment: ["PULSE_SERVER": "unix:/nonexistent/pulse"])
        #expect(d.status == 1 && d.stderrLines.count == 1)
    }

    @Test(.pulseDaemon) func serverKilledMidRunEndsWithAnErrorAndKeepsWhatWasCaptured() throws {
        let (dir, daemonDir) = try Self.privateDaemon()
        let out = dir.appendingPathComponent("cap.wav")
        let g = try Self.graph("""
            {"nodes": [{"id": "mic", "type": "pulse-source", "params": {"device": "agtest_pipe"}},
                       {"id": "out", "type": "wav-sink", "params": {"path": "\(out.path)"}}],
             "connections": [{"from": "mic", "to": "out"}]}
            """)
        let sent = Self.signal(seconds: 1.0)
        let began = Date()
        let r = try CLI.run(["run", g.path, "--json"], timeout: 20, environment: ["PULSE_SERVER": "unix:\(daemonDir)/native"],
                            during: {
            Self.feed(sent, to: daemonDir + "/pipe")
            usleep(300_000)
            Self.killDaemon(daemonDir)
        })
        #expect(r.status == 1, "\(r.stderr)")
        #expect(Date().timeIntervalSince(began) < 6, "ends promptly after the server dies")
        #expect(r.stdout.contains(#""type":"error""#) && r.stdout.contains(#""reason":"error""#))
        #expect(r.stderr.contains("lost the capture stream"), "\(r.stderr)")
        let got = try WAVFixture.read(out).samples
        #expect(got.count >= sent.count, "audio captured before the failure was kept: \(got.count)")
    }

    @Test(.flite, .pulseDaemon) func serverKilledAfterSpeechStillDeliversTheFinalTranscript() throws {
        let wav = try #require(Flite.speech("go forward ten meters"))
        let (dir, daemonDir) = try Self.privateDaemon()
        defer { Self.killDaemon(daemonDir) }
        // The speech as 16 kHz mono s16 for the pipe, with silence after it so the VAD ends it.
        let speech = try #require(Flite.convert(wav, rate: 16000, channels: 1))
        let samples = try WAVFixture.read(speech).samples.map { Int16($0) } + [Int16](repeating: 0, count: 16000)
        let r = try CLI.run(["run", "graphs/dictation.json", "--json", "--set", "mic.device=agtest_pipe"], timeout: 60,
                            environment: ["PULSE_SERVER": "unix:\(daemonDir)/native"], during: {
            Self.feed(samples, to: daemonDir + "/pipe")
            usleep(200_000)
            Self.killDaemon(daemonDir)
        })
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("lost the capture stream"), "\(r.stderr)")
        let final = r.stdout.split(separator: "\n").first { $0.contains(#""type":"final""#) }
        #expect(final?.contains("go forward ten meters") == true, "the words heard before the failure: \(r.stdout)")
        #expect(r.stdout.contains(#""reason":"error""#))
    }

    /// A device reconfigured under a running graph (the server comes back with the source at
    /// 48 kHz stereo instead of 16 kHz mono): the stream keeps the negotiated format (the
    /// server converts), so the resampler and everything after it carry on unchanged.
    @Test(.pulseDaemon) func deviceReconfiguredMidRunKeepsTheGraphsFormat() throws {
        let (dir, daemonDir) = try Self.privateDaemon()
        defer { Self.killDaemon(daemonDir) }
        let out = dir.appendingPathComponent("cap.wav")
        let g = try Self.graph("""
            {"nodes": [{"id": "mic", "type": "pulse-source", "params": {"device": "agtest_pipe", "reconnect": 20}},
                       {"id": "rs", "type": "resampler", "params": {"rate": 8000}},
                       {"id": "out", "type": "wav-sink", "params": {"path": "\(out.path)"}}],
             "connections": [{"from": "mic", "to": "rs"}, {"from": "rs", "to": "out"}]}
            """)
        // 1 kHz at 16 kHz mono, then 1 kHz at 48 kHz stereo after the restart.
        let tone16 = (0..<16000).map { Int16(8000 * sin(2 * Double.pi * 1000 * Double($0) / 16000)) }
        let tone48 = (0..<48000).flatMap { i -> [Int16] in
            let v = Int16(8000 * sin(2 * Double.pi * 1000 * Double(i) / 48000))
            return [v, v]
        }
        let r = try Self.runAcrossRestart(g, daemonDir: daemonDir, before: tone16, after: tone48,
                                          restartedPipe: (48000, 2), afterChunk: 19200)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("capture resumed"), "\(r.stdout)")
        let w = try WAVFixture.read(out)
        #expect(w.rate == 8000 && w.channels == 1, "the graph's format did not change")
        // Both tones come through at 1 kHz and full level: the last 0.5 s of each stretch.
        let x = w.samples.map { Double($0) / 32768 }
        let loud = x.indices.filter { abs(x[$0]) > 0.1 }
        let secondStart = try #require(loud.last.map { $0 - 4000 }, "the second tone is there")
        for start in [loud.first! + 1000, secondStart] {
            let amplitude = Self.toneLevel(Array(x[start..<start + 2000]), rate: 8000)
            #expect(abs(amplitude - 8000.0 / 32768) < 0.02, "1 kHz at its level from \(start): \(amplitude)")
        }
    }

    /// Runs `graph --json` against the daemon in `daemonDir`: feeds `before`, kills the
    /// daemon, starts it again (its pipe source at `restartedPipe` rate and channels), feeds
    /// `after`, then stops the run with SIGINT.
    static func runAcrossRestart(_ graph: URL, daemonDir: String, before: [Int16], after: [Int16],
                                 restartedPipe: (rate: Int, channels: Int) = (16000, 1),
                                 afterChunk: Int = 3200) throws -> CLI.Result {
        let finished = daemonDir + "/fed"
        return try CLI.run(["run", graph.path, "--json"], timeout: 40, environment: ["PULSE_SERVER": "unix:\(daemonDir)/native"],
                           during: {
            feed(before, to: daemonDir + "/pipe")
            usleep(300_000)
            killDaemon(daemonDir)
            usleep(1_000_000)
            try? startDaemon(daemonDir, pipeRate: restartedPipe.rate, pipeChannels: restartedPipe.channels)
            feed(after, to: daemonDir + "/pipe", after: 1.5, chunk: afterChunk)
            usleep(500_000)
            FileManager.default.createFile(atPath: finished, contents: nil)
        }, interruptWhen: { _ in FileManager.default.fileExists(atPath: finished) })
    }

    /// A daemon of the test's own (so it can kill and restart it): (temp dir, daemon dir).
    /// Where `window` matches `samples` best (least absolute difference).
    static func closest(_ window: [Int16], in samples: [Int16]) -> Int {
        guard samples.count >= window.count else { return -1 }
        var best = (Int.max, -1)
        for j in 0...(samples.count - window.count) {
            var d = 0
            for k in stride(from: 0, to: window.count, by: 4) { d += abs(Int(samples[j + k]) - Int(window[k])) }
            if d < best.0 { best = (d, j) }
        }
        return best.1
    }

    static func privateDaemon() throws -> (URL, String) {
        let dir = CLI.tempDir()
        let daemonDir = dir.appendingPathComponent("pulse").path
        try startDaemon(daemonDir)
        return (dir, daemonDir)
    }

    /// Starts (or restarts) a private daemon of the test's own in `dir`; `pipeRate` and
    /// `pipeChannels` set its pipe source's format.
    static func startDaemon(_ dir: String, pipeRate: Int = 16000, pipeChannels: Int = 1) throws {
        let start = Process()
        start.environment = ProcessInfo.processInfo.environment.merging(
            ["AG_PIPE_RATE": "\(pipeRate)", "AG_PIPE_CHANNELS": "\(pipeChannels)"]) { $1 }
        start.executableURL = CLI.packageRoot.appendingPathComponent("Tools/pulse-daemon")
        start.arguments = ["start", dir]
        start.standardOutput = FileHandle.nullDevice
        try start.run()
        start.waitUntilExit()
        try #require(start.terminationStatus == 0)
    }

    static func killDaemon(_ dir: String) {
        let stop = Process()
        stop.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        stop.arguments = ["-9", "-f", "pulseaudio.*\(dir)/native"]
        try? stop.run()
        stop.waitUntilExit()
    }

    @Test(.pulseDaemon) func reconnectWaitsForTheServerToComeBackAndReportsTheGap() throws {
        let (dir, daemonDir) = try Self.privateDaemon()
        defer { Self.killDaemon(daemonDir) }
        let out = dir.appendingPathComponent("cap.wav")
        let g = try Self.graph("""
            {"nodes": [{"id": "mic", "type": "pulse-source", "params": {"device": "agtest_pipe", "reconnect": 20}},
                       {"id": "out", "type": "wav-sink", "params": {"path": "\(out.path)"}}],
             "connections": [{"from": "mic", "to": "out"}]}
            """)
        let before = Self.signal(seconds: 1.0)
        let after = Array(Self.signal(seconds: 2.0).suffix(16000))
        let r = try Self.runAcrossRestart(g, daemonDir: daemonDir, before: before, after: after)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#""type":"warning","node":"mic","message":"PulseAudio: capture resumed"#), "\(r.stdout)")
        #expect(r.stdout.contains(#""reason":"stopped""#))
        let got = try WAVFixture.read(out).samples.map { Int16($0) }
        // Both stretches arrive, sample-exact, one after the other (the gap is not in the stream).
        #expect(got.count >= before.count + after.count, "\(got.count)")
        let first = try #require(Self.find(before, in: got), "the stretch before the restart is there")
        #expect(got[first..<first + before.count].elementsEqual(before), "sample-exact before the restart")
        let second = try #require(Self.find(after, in: got, from: first + before.count), "the stretch after it too")
        #expect(got[second..<second + after.count].elementsEqual(after), "sample-exact after the restart")
    }

    /// Where `needle` starts in `haystack` (matching its first 16 samples), at or after `from`.
    static func find(_ needle: [Int16], in haystack: [Int16], from: Int = 0) -> Int? {
        let head = Array(needle.prefix(16))
        var i = from
        while i + needle.count <= haystack.count {
            if haystack[i] == head[0] && Array(haystack[i..<i + head.count]) == head { return i }
            i += 1
        }
        return nil
    }

    @Test(.pulseDaemon) func reconnectGivesUpAfterItsPatience() throws {
        let (_, daemonDir) = try Self.privateDaemon()
        let g = try Self.graph("""
            {"nodes": [{"id": "mic", "type": "pulse-source", "params": {"device": "agtest_pipe", "reconnect": 1}},
                       {"id": "out", "type": "null-sink"}],
             "connections": [{"from": "mic", "to": "out"}]}
            """)
        let began = Date()
        let r = try CLI.run(["run", g.path, "--json"], timeout: 20, environment: ["PULSE_SERVER": "unix:\(daemonDir)/native"],
                            during: {
            usleep(500_000)
            Self.killDaemon(daemonDir)
        })
        #expect(r.status == 1, "\(r.stderr)")
        #expect(Date().timeIntervalSince(began) < 8)
        #expect(r.stdout.contains("no server after 1 s of retrying"), "\(r.stdout)")
        #expect(r.stderr.contains("lost the capture stream"), "\(r.stderr)")
    }
}

/// PipeWire without a session manager has no default source: the error says so, and how
/// to pick one, instead of naming PipeWire's placeholder "@DEFAULT_SOURCE@".
@Suite struct PipeWireTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/pipewire-pulse"), "PipeWire is not installed"))
    func noDefaultSourceSaysSo() throws {
        let dir = CLI.tempDir().appendingPathComponent("pw").path
        let start = Process()
        start.executableURL = CLI.packageRoot.appendingPathComponent("Tools/pulse-daemon")
        start.arguments = ["start", dir]
        start.environment = ProcessInfo.processInfo.environment.merging(["AG_SOUND_SERVER": "pipewire-bare"]) { $1 }
        start.standardOutput = FileHandle.nullDevice
        try start.run()
        start.waitUntilExit()
        defer {
            let stop = Process()
            stop.executableURL = CLI.packageRoot.appendingPathComponent("Tools/pulse-daemon")
            stop.arguments = ["stop", dir]
            try? stop.run()
            stop.waitUntilExit()
        }
        let r = try CLI.run(["run", "graphs/dictation.json"], environment: ["PULSE_SERVER": "unix:\(dir)/native"])
        #expect(r.status == 1)
        #expect(r.stderrLines.count == 1 && r.stderr.contains("has no default source")
                && r.stderr.contains("pactl set-default-source") && !r.stderr.contains("@DEFAULT_SOURCE@"), "\(r.stderr)")
    }
}
