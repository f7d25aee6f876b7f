import Foundation
import Testing

/// End-to-end runs of the built executable on files.
@Suite struct RunCommandTests {
    let dir = CLI.tempDir()

    func passThrough(bits: Int, channels: Int, rate: Int) throws {
        let input = dir.appendingPathComponent("in\(bits).wav"), output = dir.appendingPathComponent("out\(bits).wav")
        let samples = WAVFixture.noise(count: 48_000 * channels + 6, bits: bits)
        try WAVFixture.write(input, rate: rate, channels: channels, bits: bits, samples: samples)
        let r = try CLI.run(["run", "Graphs/gain.json", "--source", input.path, "--set", "out.path=\(output.path)",
                             "--set", "out.format=s\(bits)", "--set", "gain.db=0"])
        #expect(r.status == 0, "\(r.stderr)")
        let back = try WAVFixture.read(output)
        #expect(back.rate == rate && back.channels == channels && back.bits == bits)
        #expect(back.samples == samples, "pass-through is bit-exact")
    }

    @Test func passThroughIsBitExactAt16Bits() throws { try passThrough(bits: 16, channels: 2, rate: 44100) }
    @Test func passThroughIsBitExactAt24Bits() throws { try passThrough(bits: 24, channels: 1, rate: 96000) }

    @Test func gainScalesBySixDecibels() throws {
        let input = dir.appendingPathComponent("g.wav"), output = dir.appendingPathComponent("g-out.wav")
        let samples = (0..<16000).map { Int32(($0 % 200 - 100) * 200) }
        try WAVFixture.write(input, rate: 16000, channels: 1, bits: 16, samples: samples)
        let r = try CLI.run(["run", "Graphs/gain.json", "--source", input.path, "--set", "out.path=\(output.path)",
                             "--set", "gain.db=-6.0206"])
        #expect(r.status == 0, "\(r.stderr)")
        let back = try WAVFixture.read(output).samples
        #expect(back.count == samples.count)
        #expect(zip(samples, back).allSatisfy { abs(Double($0) / 2 - Double($1)) <= 1 })
    }

    @Test func mixesTwoFileInputs() throws {
        let a = dir.appendingPathComponent("a.wav"), b = dir.appendingPathComponent("b.wav")
        let out = dir.appendingPathComponent("mix.wav"), graph = dir.appendingPathComponent("mix.json")
        try WAVFixture.write(a, rate: 8000, channels: 1, bits: 16, samples: Array(repeating: 1000, count: 8000))
        try WAVFixture.write(b, rate: 8000, channels: 2, bits: 16, samples: Array(repeating: 300, count: 2 * 4000))
        try """
            {"graph": "mix", "nodes": [
              {"id": "a", "type": "file-source", "params": {"path": "x.wav"}},
              {"id": "b", "type": "file-source", "params": {"path": "y.wav"}},
              {"id": "m", "type": "mixer", "params": {"channels": 1}},
              {"id": "o", "type": "wav-sink", "params": {"path": "\(out.path)"}}],
             "connections": [{"from": "a", "to": "m"}, {"from": "b", "to": "m"}, {"from": "m", "to": "o"}]}
            """.write(to: graph, atomically: true, encoding: .utf8)
        let r = try CLI.run(["run", graph.path, "--source", "a=\(a.path)", "--source", "b=\(b.path)"])
        #expect(r.status == 0, "\(r.stderr)")
        let s = try WAVFixture.read(out).samples
        #expect(s.count == 8000)
        #expect(s.first == 1300 && s[3999] == 1300, "both inputs summed (stereo averaged to mono)")
        #expect(s[4000] == 1000 && s.last == 1000, "the shorter input ends as silence")
    }

    @Test func jsonLinesParseAndComeInOrder() throws {
        let r = try CLI.run(["run", "Graphs/tone.json", "--json", "--set", "out.path=\(dir.appendingPathComponent("t.wav").path)"])
        #expect(r.status == 0)
        let objects = try r.stdoutLines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(objects.first?["type"] as? String == "state")
        #expect(objects.last?["type"] as? String == "end" && objects.last?["reason"] as? String == "end-of-input")
        let times = objects.filter { $0["type"] as? String == "level" }.compactMap { $0["t"] as? Double }
        #expect(times == [0.5, 1, 1.5, 2])
        #expect(r.stderr.isEmpty, "nothing on stderr: \(r.stderr)")
    }

    @Test func realtimeGivesTheSameEventsAsFast() throws {
        let out = dir.appendingPathComponent("t.wav").path
        let fast = try CLI.run(["run", "Graphs/tone.json", "--json", "--set", "out.path=\(out)", "--set", "sine.duration=0.6",
                                "--set", "noise.duration=0.6", "--set", "meter.interval=0.1"])
        let slow = try CLI.run(["run", "Graphs/tone.json", "--json", "--realtime", "--set", "out.path=\(out)",
                                "--set", "sine.duration=0.6", "--set", "noise.duration=0.6", "--set", "meter.interval=0.1"])
        #expect(fast.stdout == slow.stdout)
        #expect(fast.stdoutLines.count == 9)
    }

    @Test func sigintStopsAndLeavesAValidFile() throws {
        let out = dir.appendingPathComponent("long.wav")
        let r = try CLI.run(["run", "Graphs/tone.json", "--realtime", "--json", "--set", "out.path=\(out.path)",
                             "--set", "sine.duration=30", "--set", "noise.duration=30"], interruptAfter: [0.6])
        #expect(r.status == 0)
        #expect(r.stdoutLines.last == #"{"type":"end","reason":"stopped"}"#)
        let back = try WAVFixture.read(out)
        #expect(back.samples.count > 2 * 48000 / 5 && back.samples.count < 2 * 48000 * 5, "header matches what was written")
    }

    @Test func secondSigintCancels() throws {
        let dir = CLI.tempDir()
        let g = dir.appendingPathComponent("endless.json")
        try """
            {"nodes": [{"id": "s", "type": "test-signal", "params": {"duration": 0}}, {"id": "o", "type": "null-sink"}],
             "connections": [{"from": "s", "to": "o"}]}
            """.write(to: g, atomically: true, encoding: .utf8)
        // The first SIGINT ends the source; a run this small ends before a second one,
        // so check the stop path, then cancel through two quick signals.
        let r = try CLI.run(["run", g.path, "--realtime", "--json"], interruptAfter: [0.3, 0.3])
        #expect(r.status == 0)
        let reason = r.stdoutLines.last ?? ""
        #expect(reason == #"{"type":"end","reason":"stopped"}"# || reason == #"{"type":"end","reason":"cancelled"}"#)
    }
}
