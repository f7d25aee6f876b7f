import AudioGraphCore
import CPulse
import Foundation
import Synchronization

/// Every call into libpulse lives in this file and PulseStream+C.swift (swift-system's
/// Syscalls.swift pattern).
///
/// A ``PulseConnection`` owns a threaded main loop (libpulse's own thread, as GStreamer's
/// pulsesrc does) and a context. Stream callbacks run on that thread: they copy between
/// the server and a ``FrameRing`` and count, nothing more.

/// A source or sink the server offers.
public struct PulseDevice: Sendable, Equatable {
    public var name: String
    public var description: String
    public var rate: Int
    public var channels: Int
    public var sampleFormat: String
    public var isDefault: Bool
    /// A sink's monitor source.
    public var isMonitor: Bool
    /// Muted at the server (it gives, or is given, silence).
    public var isMuted: Bool = false
}

extension PulseDevice {
    /// From the fields that source and sink info records share.
    init(name: UnsafePointer<CChar>, description: UnsafePointer<CChar>?, spec: pa_sample_spec, isMonitor: Bool, mute: Int32) {
        self.init(name: String(cString: name), description: description.map { String(cString: $0) } ?? "",
                  rate: Int(spec.rate), channels: Int(spec.channels),
                  sampleFormat: String(cString: pa_sample_format_to_string(spec.format)), isDefault: false,
                  isMonitor: isMonitor, isMuted: mute != 0)
    }
}

/// The server address a client would use, for messages.
public func pulseServerAddress() -> String {
    if let s = ProcessInfo.processInfo.environment["PULSE_SERVER"], !s.isEmpty { return s }
    let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? "/run/user/\(getuid())"
    return "unix:\(runtime)/pulse/native"
}

final class PulseConnection: @unchecked Sendable {
    let mainloop: OpaquePointer
    let context: OpaquePointer
    let server: String

    /// Connects to the server (PULSE_SERVER or the default), waiting up to `timeout` seconds.
    init(name: String, timeout: Double = 3) throws(EngineError) {
        server = pulseServerAddress()
        guard let ml = pa_threaded_mainloop_new() else {
            throw EngineError(.server, "PulseAudio: cannot create a main loop")
        }
        mainloop = ml
        guard let ctx = pa_context_new(pa_threaded_mainloop_get_api(ml), name) else {
            pa_threaded_mainloop_free(ml)
            throw EngineError(.server, "PulseAudio: cannot create a context")
        }
        context = ctx
        let me = Unmanaged.passUnretained(self).toOpaque()
        pa_context_set_state_callback(ctx, { _, userdata in
            let c = Unmanaged<PulseConnection>.fromOpaque(userdata!).takeUnretainedValue()
            pa_threaded_mainloop_signal(c.mainloop, 0)
        }, me)
        var failure: String?
        if pa_threaded_mainloop_start(ml) < 0 {
            throw EngineError(.server, "PulseAudio: cannot start the main loop")
        }
        pa_threaded_mainloop_lock(ml)
        if pa_context_connect(ctx, nil, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
            failure = String(cString: pa_strerror(pa_context_errno(ctx)))
        } else {
            let deadline = monotonicSeconds() + timeout
            while true {
                let state = pa_context_get_state(ctx)
                if state == PA_CONTEXT_READY { break }
                if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                    failure = String(cString: pa_strerror(pa_context_errno(ctx)))
                    break
                }
                if monotonicSeconds() > deadline { failure = "timed out"; break }
                pa_threaded_mainloop_unlock(ml)
                usleep(2000)
                pa_threaded_mainloop_lock(ml)
            }
        }
        pa_threaded_mainloop_unlock(ml)
        if let failure {
            // deinit (which runs for a class that throws after initialising) frees it all.
            throw EngineError(.server, "PulseAudio: cannot connect to \(server): \(failure)",
                              suggestion: "start a sound server (pulseaudio --start, or PipeWire's pipewire-pulse), or use --source FILE")
        }
    }

    deinit {
        pa_threaded_mainloop_lock(mainloop)
        pa_context_set_state_callback(context, nil, nil)
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_threaded_mainloop_unlock(mainloop)
        pa_threaded_mainloop_stop(mainloop)
        pa_threaded_mainloop_free(mainloop)
    }

    /// Whether the context is still connected. Any thread.
    var isReady: Bool {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return pa_context_get_state(context) == PA_CONTEXT_READY
    }

    /// Runs `start` under the loop lock and waits for its operation to finish.
    private func wait(_ start: (UnsafeMutableRawPointer) -> OpaquePointer?) {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        guard let op = start(Unmanaged.passUnretained(self).toOpaque()) else { return }
        while pa_operation_get_state(op) == PA_OPERATION_RUNNING { pa_threaded_mainloop_wait(mainloop) }
        pa_operation_unref(op)
    }

    /// Names of the default source and sink.
    func defaults() -> (source: String, sink: String) {
        final class Box { var source = "", sink = "" }
        let box = Box()
        current = box
        wait { me in
            pa_context_get_server_info(context, { _, info, userdata in
                let c = Unmanaged<PulseConnection>.fromOpaque(userdata!).takeUnretainedValue()
                if let info, let b = c.current as? Box {
                    b.source = info.pointee.default_source_name.map { String(cString: $0) } ?? ""
                    b.sink = info.pointee.default_sink_name.map { String(cString: $0) } ?? ""
                }
                pa_threaded_mainloop_signal(c.mainloop, 0)
            }, me)
        }
        return (box.source, box.sink)
    }

    /// Scratch for callbacks of the operation in progress (under the loop lock).
    private var current: AnyObject?

    final class DeviceList { var items: [PulseDevice] = [] }

    /// Every source (`sinks: false`) or sink of the server.
    func devices(sinks: Bool) -> [PulseDevice] {
        let d = defaults()
        let list = DeviceList()
        current = list
        if sinks {
            wait { me in
                pa_context_get_sink_info_list(context, { _, info, eol, userdata in
                    let c = Unmanaged<PulseConnection>.fromOpaque(userdata!).takeUnretainedValue()
                    if eol == 0, let i = info?.pointee, let l = c.current as? DeviceList {
                        l.items.append(PulseDevice(name: i.name, description: i.description, spec: i.sample_spec,
                                                   isMonitor: false, mute: i.mute))
                    }
                    pa_threaded_mainloop_signal(c.mainloop, 0)
                }, me)
            }
        } else {
            wait { me in
                pa_context_get_source_info_list(context, { _, info, eol, userdata in
                    let c = Unmanaged<PulseConnection>.fromOpaque(userdata!).takeUnretainedValue()
                    if eol == 0, let i = info?.pointee, let l = c.current as? DeviceList {
                        l.items.append(PulseDevice(name: i.name, description: i.description, spec: i.sample_spec,
                                                   isMonitor: i.monitor_of_sink != UInt32.max, mute: i.mute))
                    }
                    pa_threaded_mainloop_signal(c.mainloop, 0)
                }, me)
            }
        }
        current = nil
        let def = sinks ? d.sink : d.source
        return list.items.map { var x = $0; x.isDefault = x.name == def; return x }
    }
}
