import AudioGraphTestSupport
import Foundation
import Testing

/// `echo-canceller` offline: flite's answer as the reference, the microphone that answer
/// delayed 60 ms through sox's reverb at -6 dB (a room), with or without a command spoken over
/// it; measured on the canceller's output.
@Suite struct EchoCancellerTests {
    static func sox(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        p.arguments = args
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// 16 kHz mono samples of a sound file (through sox).
    static func samples(_ url: URL) throws -> [Float] {
        let raw = url.deletingPathExtension().appendingPathExtension("raw")
        try sox([url.path, "-t", "s16", "-r", "16000", "-c", "1", raw.path])
        let d = try Data(contentsOf: raw)
        return d.withUnsafeBytes { b in (0..<(d.count / 2)).map { Float(Int16(littleEndian: b.loadUnaligned(fromByteOffset: 2 * $0, as: Int16.self))) / 32768 } }
    }

    /// Runs mic + reference through the canceller; the output file (and, with `events`, the
    /// run's --json lines).
    static func cancel(mic: URL, ref: URL, in dir: URL, params: String = "", events: UnsafeMutablePointer<[String]>? = nil) throws -> URL {
        let out = dir.appendingPathComponent("out.wav")
        let graph = dir.appendingPathComponent("aec.json")
        try """
        {"graph": "aec", "nodes": [
          {"id": "mic", "type": "file-source", "params": {"path": "\(mic.path)"}},
          {"id": "ref", "type": "file-source", "params": {"path": "\(ref.path)"}},
          {"id": "aec", "type": "echo-canceller"\(params)},
          {"id": "out", "type": "wav-sink", "params": {"path": "\(out.path)"}}],
         "connections": [{"from": "mic", "to": "aec:0"}, {"from": "ref", "to": "aec:1"}, {"from": "aec", "to": "out"}]}
        """.write(to: graph, atomically: true, encoding: .utf8)
        let r = try CLI.run(["run", graph.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        events?.pointee = r.stdoutLines
        return out
    }

    /// Echo return loss enhancement from `from` seconds on, over the 0.1 s windows where the
    /// echo is loud (within 30 dB of its peak window): energy in over energy out, in dB.
    static func erle(mic: URL, out: URL, from: Double) throws -> Double {
        let m = try samples(mic), o = try samples(out)
        var inE = 0.0, outE = 0.0
        let w = 1600
        let energies = stride(from: 0, to: min(m.count, o.count) - w, by: w).map { s in (m[s..<s + w].reduce(0.0) { $0 + Double($1 * $1) }, s) }
        let peak = energies.map(\.0).max() ?? 0
        for (e, s) in energies where Double(s) >= from * 16000 && e > peak * 1e-3 {
            inE += e
            outE += o[s..<s + w].reduce(0.0) { $0 + Double($1 * $1) }
        }
        return 10 * log10(inE / max(outE, 1e-12))
    }

    /// The delays of the run's `echo-delay` events, with their stream times.
    static func delays(_ lines: [String]) -> [(delay: Double, t: Double)] {
        lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["type"] as? String == "echo-delay" }
            .compactMap { e in (e["delay"] as? Double).flatMap { d in (e["t"] as? Double).map { (d, $0) } } }
    }

    /// A playback path longer than the filter's tail (0.4 s: a server's buffers, a loopback):
    /// found from the signals, the reference is delayed to match, and the echo goes.
    @Test(.flite) func anEchoLaterThanTheFilterIsFoundAndCancelled() throws {
        let dir = CLI.tempDir()
        let ref = try Self.speech(Self.answer)
        let mic = dir.appendingPathComponent("mic.wav")
        try Self.sox([ref.path, mic.path, "pad", "0.4", "0", "reverb", "40", "50", "30", "gain", "-6"])
        var lines: [String] = []
        let out = try Self.cancel(mic: mic, ref: ref, in: dir, events: &lines)
        let found = Self.delays(lines)
        #expect(found.count == 1 && abs(found[0].delay - 0.4) < 0.002 && found[0].t < 1.5, "\(found)")
        let erle = try Self.erle(mic: mic, out: out, from: 3)
        let unaligned = try Self.erle(mic: mic, out: try Self.cancel(mic: mic, ref: ref, in: dir, params: #", "params": {"align": false}"#), from: 3)
        print("echo-canceller, echo 0.4 s late: ERLE \(String(format: "%.1f", erle)) dB after 3 s (\(String(format: "%.1f", unaligned)) dB unaligned)")
        #expect(erle >= 25 && unaligned < 10, "aligned \(erle) dB, unaligned \(unaligned) dB")
    }

    /// The server's latency changes mid-answer (0.1 s, then 0.3 s from 5 s on): the node
    /// follows, says so, and cancels again.
    @Test(.flite) func aDelayThatChangesIsFollowed() throws {
        let dir = CLI.tempDir()
        let ref = try Self.speech(Self.answer)
        let early = dir.appendingPathComponent("early.wav"), late = dir.appendingPathComponent("late.wav")
        try Self.sox([ref.path, early.path, "pad", "0.1", "0", "reverb", "40", "50", "30", "gain", "-6", "trim", "0", "5"])
        try Self.sox([ref.path, late.path, "pad", "0.3", "0", "reverb", "40", "50", "30", "gain", "-6", "trim", "5"])
        let mic = dir.appendingPathComponent("mic.wav")
        try Self.sox([early.path, late.path, mic.path])
        var lines: [String] = []
        let out = try Self.cancel(mic: mic, ref: ref, in: dir, events: &lines)
        let found = Self.delays(lines)
        #expect(found.count == 2 && abs(found[0].delay - 0.1) < 0.002 && abs(found[1].delay - 0.3) < 0.002
                && found[1].t > 5 && found[1].t < 6.5, "\(found)")
        let erle = try Self.erle(mic: mic, out: out, from: 7.5)
        print("echo-canceller, echo 0.1 then 0.3 s late: ERLE \(String(format: "%.1f", erle)) dB from 7.5 s")
        #expect(erle >= 25, "ERLE \(erle) dB after the change")
    }

    /// The microphone on another clock than the playback (a USB headset, a loopback that
    /// adapts its rate): the echo comes back 110 ppm faster or slower, 1.8 samples a second.
    /// The node follows the delay's creep (measured from 6 s: the creep is known after 2 s of
    /// sound, and where the echo comes earlier and earlier the filter starts over once, placed
    /// to leave it room); without `drift` the filter chases it and loses most of what it cancels.
    @Test(.flite, arguments: [1.00011, 0.99989]) func anEchoOnAnotherClockIsFollowed(speed: Double) throws {
        let dir = CLI.tempDir()
        let once = try Self.speech(Self.answer)
        let ref = dir.appendingPathComponent("ref.wav")
        try Self.sox([once.path, once.path, ref.path])  // 20 s: 36 samples of creep
        let mic = dir.appendingPathComponent("mic.wav")
        try Self.sox([ref.path, mic.path, "pad", "0.12", "0", "speed", String(speed), "rate", "-v", "16000",
                      "reverb", "40", "50", "30", "gain", "-6"])
        let erle = try Self.erle(mic: mic, out: try Self.cancel(mic: mic, ref: ref, in: dir), from: 6)
        let chased = try Self.erle(mic: mic, out: try Self.cancel(mic: mic, ref: ref, in: dir, params: #", "params": {"drift": false}"#), from: 6)
        print("echo-canceller, echo at \(speed) of the playback's rate: ERLE \(String(format: "%.1f", erle)) dB after 6 s (\(String(format: "%.1f", chased)) dB without drift)")
        #expect(erle >= 25 && chased < erle - 5, "followed \(erle) dB, chased \(chased) dB")
    }

    /// On a drifting clock the echo's path jumps away for 5 s (0.12 s, then 0.5 s, then 0.12 s
    /// again: a wrong delay confirmed, or a server's buffer that filled and drained): each jump
    /// places the echo afresh and the creep is measured again from there. (A wrong delay
    /// confirmed from speech over an earcon, as seen live, is not what this reproduces.)
    @Test(.flite) func anEchoThatJumpsAwayAndBackOnAnotherClockIsFollowed() throws {
        let dir = CLI.tempDir()
        let once = try Self.speech(Self.answer)
        let ref = dir.appendingPathComponent("ref.wav")
        try Self.sox([once.path, once.path, once.path, ref.path])  // 30 s
        let fast = dir.appendingPathComponent("fast.wav")
        try Self.sox([ref.path, fast.path, "speed", "1.00011", "rate", "-v", "16000"])
        var parts: [String] = []
        for (k, (pad, from, length)) in [(0.12, 0.0, 10.0), (0.5, 10.0, 5.0), (0.12, 15.0, 15.0)].enumerated() {
            let part = dir.appendingPathComponent("part\(k).wav")
            try Self.sox([fast.path, part.path, "pad", String(pad), "0", "trim", String(from), String(length)])
            parts.append(part.path)
        }
        let dry = dir.appendingPathComponent("dry.wav"), mic = dir.appendingPathComponent("mic.wav")
        try Self.sox(parts + [dry.path])
        try Self.sox([dry.path, mic.path, "reverb", "40", "50", "30", "gain", "-6"])
        var lines: [String] = []
        let out = try Self.cancel(mic: mic, ref: ref, in: dir, events: &lines)
        let found = Self.delays(lines)
        let back = found.last { $0.t > 15 }
        #expect(found.contains { abs($0.delay - 0.5) < 0.003 && $0.t > 10 && $0.t < 15 }, "\(found)")
        #expect(back.map { abs($0.delay - 0.12) < 0.003 } ?? false, "\(found)")
        let erle = try Self.erle(mic: mic, out: out, from: 21)
        print("echo-canceller, drifting echo 0.12 s, 0.5 s, 0.12 s late: ERLE \(String(format: "%.1f", erle)) dB from 21 s; delays \(found.map { String(format: "%.3f@%.1f", $0.delay, $0.t) })")
        #expect(erle >= 25, "ERLE \(erle) dB after the jump back")
    }

    /// Sounds the graph plays more than once within a second (a word said three times, the
    /// same earcon three times): the echo correlates with every copy and a copy's peak can
    /// be the strongest, but the echo is still where it was found, so the delay stays (before:
    /// 0.99 s and 0.94 s confirmed for 0.12 s, each a filter thrown away).
    @Test(.flite) func aSoundPlayedTwiceDoesNotMoveTheDelay() throws {
        let dir = CLI.tempDir()
        let answer = try Self.speech("Here is the weather for today. It will be sunny in the morning.")
        let okay = try Self.speech("okay")
        let short = dir.appendingPathComponent("short.wav"), long = dir.appendingPathComponent("long.wav")
        let tone = dir.appendingPathComponent("tone.wav")
        try Self.sox(["-n", "-r", "16000", "-c", "1", short.path, "trim", "0", "0.05"])
        try Self.sox(["-n", "-r", "16000", "-c", "1", long.path, "trim", "0", "0.7"])
        try Self.sox(["-n", "-r", "16000", "-c", "1", tone.path, "synth", "0.12", "sine", "523", "gain", "-6"])
        let ref = dir.appendingPathComponent("ref.wav"), mic = dir.appendingPathComponent("mic.wav")
        try Self.sox([answer, short, okay, short, okay, short, okay, long, tone, long, tone, long, tone, long, answer].map(\.path) + [ref.path])
        try Self.sox([ref.path, mic.path, "pad", "0.12", "0", "reverb", "40", "50", "30", "gain", "-6"])
        var lines: [String] = []
        _ = try Self.cancel(mic: mic, ref: ref, in: dir, events: &lines)
        let found = Self.delays(lines)
        #expect(!found.isEmpty && found.allSatisfy { abs($0.delay - 0.12) < 0.002 }, "\(found)")
    }

    /// flite saying `text`, 16 kHz mono.
    static func speech(_ text: String) throws -> URL {
        let wav = try #require(Flite.speech(text))
        return try #require(Flite.convert(wav, rate: 16000, channels: 1))
    }

    static let answer = "Here is the weather for today. It will be sunny in the morning with clouds later on. "
        + "The high will be seventy two degrees and the low fifty five. Tomorrow looks much the same."

    @Test(.flite) func echoIsReducedByMoreThan25dBOnceConverged() throws {
        let dir = CLI.tempDir()
        let ref = try Self.speech(Self.answer)
        let mic = dir.appendingPathComponent("mic.wav")
        try Self.sox([ref.path, mic.path, "pad", "0.06", "0", "reverb", "40", "50", "30", "gain", "-6"])
        let out = try Self.cancel(mic: mic, ref: ref, in: dir)
        let m = try Self.samples(mic), o = try Self.samples(out)
        // Echo return loss enhancement over the 0.1 s windows after 3 s where the echo is loud
        // (within 30 dB of its peak window): energy in over energy out.
        var inE = 0.0, outE = 0.0
        let w = 1600
        let energies = stride(from: 0, to: min(m.count, o.count) - w, by: w).map { s in (m[s..<s + w].reduce(0.0) { $0 + Double($1 * $1) }, s) }
        let peak = energies.map(\.0).max() ?? 0
        for (e, s) in energies where s >= 3 * 16000 && e > peak * 1e-3 {
            inE += e
            outE += o[s..<s + w].reduce(0.0) { $0 + Double($1 * $1) }
        }
        let erle = 10 * log10(inE / max(outE, 1e-12))
        print("echo-canceller: ERLE \(String(format: "%.1f", erle)) dB after 3 s")
        #expect(erle >= 25, "ERLE \(erle) dB")
    }

    @Test(.flite) func aCommandSpokenOverTheAnswerIsRecognisedExactly() throws {
        let dir = CLI.tempDir()
        let ref = try Self.speech(Self.answer)
        let echo = dir.appendingPathComponent("echo.wav")
        try Self.sox([ref.path, echo.path, "pad", "0.06", "0", "reverb", "40", "50", "30", "gain", "-6"])
        // The user's command from 5 s on, at about the echo's level (0 dB speech to echo).
        let command = try Self.speech("find japanese restaurants nearby")
        let near = dir.appendingPathComponent("near.wav")
        try Self.sox([command.path, near.path, "pad", "5", "0", "gain", "-6"])
        let mic = dir.appendingPathComponent("mic.wav")
        try Self.sox(["-m", echo.path, near.path, mic.path])
        let out = try Self.cancel(mic: mic, ref: ref, in: dir)
        let grammar = CLI.packageRoot.appendingPathComponent("Graphs/command.json").path
        // The command graph waits up to 5 s for speech: start it at the command.
        let cut = dir.appendingPathComponent("cut.wav")
        try Self.sox([out.path, cut.path, "trim", "4.5"])
        let heard = try CLI.run(["run", grammar, "--source", cut.path])
        #expect(heard.stdout.contains("find japanese restaurants nearby"), "with the canceller: \(heard.stdout)")
        let cutMic = dir.appendingPathComponent("cutmic.wav")
        try Self.sox([mic.path, cutMic.path, "trim", "4.5"])
        let without = try CLI.run(["run", grammar, "--source", cutMic.path])
        print("without the canceller: \(without.stdout.split(separator: "\n").first ?? "")")
    }
}
