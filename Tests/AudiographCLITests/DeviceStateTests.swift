import AudioGraphTestSupport
import Foundation
import Synchronization
import Testing

/// A device removed under a running graph (a USB headset unplugged): the server moves the
/// streams to another device and the run goes on; it says where its capture and playback went.
extension PulseIntegrationTests {
    /// Sends signal `name` (STOP, CONT) to the daemon whose command line matches `pattern`.
    static func signalDaemon(_ name: String, _ pattern: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        p.arguments = ["-\(name)", "-f", pattern]
        try? p.run()
        p.waitUntilExit()
    }

    static func pactl(_ args: [String]) throws -> String {
        let p = Process(), out = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
        p.arguments = args
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.pulseDaemon) func aRemovedDeviceIsReportedWhereTheStreamsWent() throws {
        let module = try Self.pactl(["load-module", "module-null-sink", "sink_name=agtest_usb", "rate=44100", "channels=2"])
        try #require(Int(module) != nil, "a null sink to remove: \(module)")
        var unloaded = false
        defer { if !unloaded { _ = try? Self.pactl(["unload-module", module]) } }
        let g = try Self.graph("""
            {"nodes": [{"id": "tone", "type": "test-signal", "params": {"rate": 44100, "duration": 0}},
                       {"id": "spk", "type": "pulse-sink", "params": {"device": "agtest_usb"}},
                       {"id": "mic", "type": "pulse-source", "params": {"device": "agtest_usb.monitor"}},
                       {"id": "meter", "type": "level-meter", "params": {"interval": 0.1}},
                       {"id": "out", "type": "null-sink"}],
             "connections": [{"from": "tone", "to": "spk"}, {"from": "mic", "to": "meter"}, {"from": "meter", "to": "out"}]}
            """)
        // Once the monitor's capture is under way (its fifth level report), the device goes;
        // the run is stopped once both moves are reported, or after 15 s.
        let removal = Mutex(false)
        let r = try CLI.run(["run", g.path, "--json"], timeout: 15, interruptWhen: { out in
            if out.components(separatedBy: #""type":"level""#).count > 5 && !removal.withLock({ d in defer { d = true }; return d }) {
                _ = try? Self.pactl(["unload-module", module])
            }
            return out.contains("moved the capture") && out.contains("moved the playback")
        })
        unloaded = removal.withLock { $0 }
        #expect(r.status == 0, "the run went on and stopped cleanly: \(r.stderr)")
        let events = r.stdout.split(separator: "\n").map(String.init)
        let capture = events.first { $0.contains(#""node":"mic""#) && $0.contains("moved the capture from \\\"agtest_usb.monitor\\\"") }
        #expect(capture != nil, "\(r.stdout)")
        #expect(events.contains { $0.contains(#""node":"spk""#) && $0.contains("moved the playback from \\\"agtest_usb\\\"") },
                "\(r.stdout)")
        // The capture's new device is reported as a device event after the warning.
        let devices = events.filter { $0.contains(#""type":"device","node":"mic""#) }
        #expect(devices.first?.contains(#""name":"agtest_usb.monitor""#) == true, "\(devices)")
        #expect(devices.count >= 2 && devices.last?.contains("agtest_usb") == false, "\(devices)")
    }
}

extension PulseIntegrationTests {
    /// A `pulse-source` without a `device` takes the default and follows it: a user who picks
    /// another microphone in the desktop's settings is heard on it (PipeWire pinned a stream
    /// to the default it had when it was named).
    @Test(.pulseDaemon) func aSourceWithoutADeviceFollowsTheDefault() throws {
        let before = try Self.pactl(["get-default-source"])
        defer { _ = try? Self.pactl(["set-default-source", before]) }
        _ = try Self.pactl(["set-default-source", "agtest_sink.monitor"])
        let g = try Self.graph("""
            {"nodes": [{"id": "mic", "type": "pulse-source"},
                       {"id": "out", "type": "null-sink"}],
             "connections": [{"from": "mic", "to": "out"}]}
            """)
        let changed = Mutex(false)
        let r = try CLI.run(["run", g.path, "--json"], timeout: 15, interruptWhen: { out in
            if out.contains(#""type":"device""#) && !changed.withLock({ c in defer { c = true }; return c }) {
                _ = try? Self.pactl(["set-default-source", "agtest_pipe"])
            }
            return out.contains("moved the capture")
        })
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#"moved the capture from \"agtest_sink.monitor\" to \"agtest_pipe\""#), "\(r.stdout)")
        let devices = r.stdout.split(separator: "\n").filter { $0.contains(#""type":"device""#) }
        #expect(devices.first?.contains(#""name":"agtest_sink.monitor""#) == true
                && devices.last?.contains(#""name":"agtest_pipe""#) == true, "\(devices)")
    }
}

extension PulseIntegrationTests {
    /// A muted microphone gives digital silence: the run says so at once (muted at the server)
    /// and again after 5 s of nothing but zeros (which a switch on the device also gives).
    @Test(.pulseDaemon) func aMutedMicrophoneIsReported() throws {
        let pipe = try #require(Self.pipe)
        _ = try Self.pactl(["set-source-mute", "agtest_pipe", "1"])
        defer { _ = try? Self.pactl(["set-source-mute", "agtest_pipe", "0"]) }
        let g = try Self.graph("""
            {"nodes": [{"id": "mic", "type": "pulse-source", "params": {"device": "agtest_pipe"}},
                       {"id": "out", "type": "null-sink"}],
             "connections": [{"from": "mic", "to": "out"}]}
            """)
        // Stopped after the whole feed: a feed still writing would reach the next test's capture.
        let r = try CLI.run(["run", g.path, "--json"], interruptAfter: [0.6 + 6 + 0.8], timeout: 20,
                            during: { Self.feed(Self.signal(seconds: 6), to: pipe) })
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#"source \"agtest_pipe\" is muted at the server"#), "\(r.stdout)")
        #expect(r.stdout.contains(#"5 s of digital silence from \"agtest_pipe\" since 0.000 s"#), "\(r.stdout)")
    }
}

extension PulseIntegrationTests {
    /// An assistant that answers into a muted speaker is heard by nobody: the run says so.
    @Test(.pulseDaemon) func aMutedSpeakerIsReported() throws {
        _ = try Self.pactl(["set-sink-mute", "agtest_sink", "1"])
        defer { _ = try? Self.pactl(["set-sink-mute", "agtest_sink", "0"]) }
        let g = try Self.graph("""
            {"nodes": [{"id": "tone", "type": "test-signal", "params": {"rate": 48000, "duration": 0.3}},
                       {"id": "spk", "type": "pulse-sink", "params": {"device": "agtest_sink"}}],
             "connections": [{"from": "tone", "to": "spk"}]}
            """)
        let r = try CLI.run(["run", g.path], timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains(#"node "spk": PulseAudio: sink "agtest_sink" is muted at the server"#), "\(r.stderr)")
    }
}

extension PulseIntegrationTests {
    /// A server that stops taking what is played (stalled) before the sound has played out:
    /// the run still ends, 5 s on, and says the end of the audio may be cut.
    @Test(.pulseDaemon) func aSinkThatDoesNotPlayOutIsReportedAtTheEnd() throws {
        let (_, daemonDir) = try Self.privateDaemon()
        defer { Self.killDaemon(daemonDir) }
        let g = try Self.graph("""
            {"nodes": [{"id": "tone", "type": "test-signal", "params": {"rate": 48000, "duration": 0.3}},
                       {"id": "spk", "type": "pulse-sink", "params": {"device": "agtest_sink"}}],
             "connections": [{"from": "tone", "to": "spk"}]}
            """)
        let daemon = "pulseaudio.*\(daemonDir)/native"
        // The daemon is frozen once the stream is open (the run is listening).
        let frozen = Mutex(false)
        let r = try CLI.run(["run", g.path, "--json"], timeout: 20, environment: ["PULSE_SERVER": "unix:\(daemonDir)/native"],
                            interruptWhen: { out in
                                if out.contains(#""state":"listening""#) && !frozen.withLock({ f in defer { f = true }; return f }) {
                                    Self.signalDaemon("STOP", daemon)
                                }
                                return false
                            })
        Self.signalDaemon("CONT", daemon)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#"sink \"agtest_sink\" had not played what it was given 5 s after the end"#), "\(r.stdout)")
    }
}
