import AudioGraphCore
import CPulse
import Foundation
import Synchronization

// The stream half of the libpulse calls (the connection and device list are in
// Pulse+C.swift): every call into libpulse lives in these two files.

/// One record or playback stream between the server and a ``FrameRing``.
final class PulseStream: @unchecked Sendable {
    let connection: PulseConnection
    let stream: OpaquePointer
    let ring: FrameRing
    let isCapture: Bool
    let channels: Int
    /// Set when the stream or the connection failed (server gone, device removed).
    let failed = Atomic<Bool>(false)
    /// Frames the ring could not take (capture) or give (playback, while running).
    let lostFrames = Atomic<Int>(0)
    /// Overflows (capture) / underflows (playback) the server reported.
    let serverXruns = Atomic<Int>(0)
    /// Playback: the engine has delivered everything; silence after the ring is not an underrun.
    let ending = Atomic<Bool>(false)
    let started = Atomic<Bool>(false)
    /// Capture: bytes waiting in the server's queue for this stream (read again when the
    /// ring has room), as last seen by the main loop.
    let backlogBytes = Atomic<Int>(0)
    /// The server queues at most this much for a capture stream (its maxlength, 4 MiB).
    static let serverQueueBytes = 4 << 20
    /// Signalled when the stream moved: captured frames arrived, played frames were taken
    /// from the ring, or the stream failed. The render thread waits on it (the engine's,
    /// for a node not ready) instead of polling.
    let progressed: Readiness
    /// Where the server's device name is put when it moves the stream to another device (the
    /// device was removed, or a user moved the stream), for the node to report.
    let movedTo: Locked<String?>?
    /// The device the server connected the stream to (for `device` nil: the default's), as
    /// it was once connected (moves go to `movedTo`).
    private(set) var connectedTo: String?
    /// Set (under the main-loop lock) once the stream is disconnected.
    private var closed = false
    /// Capture: the timer that reads again what the ring had no room for (main-loop thread).
    private var retry: OpaquePointer?
    private let scratch: UnsafeMutablePointer<Float>
    private let scratchFrames: Int

    /// Creates and connects a stream (corked) to `device`. nil leaves the choice to the
    /// server: the default, and the stream follows when the default changes; a named device
    /// pins the stream to it (it moves only when the device goes).
    init(connection: PulseConnection, capture: Bool, device: String?, rate: Int, channels: Int,
         latency: Double, ring: FrameRing, progressed: Readiness, movedTo: Locked<String?>? = nil) throws(EngineError) {
        self.connection = connection
        self.movedTo = movedTo
        self.ring = ring
        self.progressed = progressed
        self.isCapture = capture
        self.channels = channels
        scratchFrames = 8192
        scratch = .allocate(capacity: scratchFrames * channels)
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(rate), channels: UInt8(channels))
        let ml = connection.mainloop
        pa_threaded_mainloop_lock(ml)
        defer { pa_threaded_mainloop_unlock(ml) }
        guard let s = pa_stream_new(connection.context, capture ? "audiograph capture" : "audiograph playback", &spec, nil) else {
            scratch.deallocate()
            throw EngineError(.device, "PulseAudio: cannot create a stream: \(String(cString: pa_strerror(pa_context_errno(connection.context))))")
        }
        stream = s
        let me = Unmanaged.passUnretained(self).toOpaque()
        pa_stream_set_state_callback(s, { s, userdata in
            let st = Unmanaged<PulseStream>.fromOpaque(userdata!).takeUnretainedValue()
            let state = pa_stream_get_state(s)
            if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED {
                st.failed.store(true, ordering: .releasing)
                st.progressed.signal()
            }
            pa_threaded_mainloop_signal(st.connection.mainloop, 0)
        }, me)
        pa_context_set_state_callback(connection.context, { ctx, userdata in
            let st = Unmanaged<PulseStream>.fromOpaque(userdata!).takeUnretainedValue()
            let state = pa_context_get_state(ctx)
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                st.failed.store(true, ordering: .releasing)
                st.progressed.signal()
            }
            pa_threaded_mainloop_signal(st.connection.mainloop, 0)
        }, me)
        pa_stream_set_moved_callback(s, { s, userdata in
            let st = Unmanaged<PulseStream>.fromOpaque(userdata!).takeUnretainedValue()
            if let name = pa_stream_get_device_name(s) { st.movedTo?.withLock { $0 = String(cString: name) } }
        }, me)
        let bytesPerFrame = UInt32(4 * channels)
        let fragment = UInt32(max(64, Int(latency * Double(rate)))) * bytesPerFrame
        var attr = pa_buffer_attr(maxlength: UInt32.max, tlength: capture ? UInt32.max : fragment * 2,
                                  prebuf: capture ? UInt32.max : fragment, minreq: capture ? UInt32.max : fragment / 2,
                                  fragsize: capture ? fragment : UInt32.max)
        let flags = pa_stream_flags_t(rawValue: PA_STREAM_START_CORKED.rawValue | PA_STREAM_ADJUST_LATENCY.rawValue
            | PA_STREAM_AUTO_TIMING_UPDATE.rawValue | PA_STREAM_INTERPOLATE_TIMING.rawValue)
        let result: Int32
        if capture {
            pa_stream_set_read_callback(s, { s, _, userdata in
                Unmanaged<PulseStream>.fromOpaque(userdata!).takeUnretainedValue().onReadable(s!)
            }, me)
            pa_stream_set_overflow_callback(s, { _, userdata in
                Unmanaged<PulseStream>.fromOpaque(userdata!).takeUnretainedValue().serverXruns.add(1, ordering: .relaxed)
            }, me)
            result = pa_stream_connect_record(s, device, &attr, flags)
        } else {
            pa_stream_set_write_callback(s, { s, bytes, userdata in
                Unmanaged<PulseStream>.fromOpaque(userdata!).takeUnretainedValue().onWritable(s!, bytes)
            }, me)
            pa_stream_set_underflow_callback(s, { _, userdata in
                let st = Unmanaged<PulseStream>.fromOpaque(userdata!).takeUnretainedValue()
                if !st.ending.load(ordering: .relaxed) { st.serverXruns.add(1, ordering: .relaxed) }
            }, me)
            result = pa_stream_connect_playback(s, device, &attr, flags, nil, nil)
        }
        var failure: String? = result < 0 ? String(cString: pa_strerror(pa_context_errno(connection.context))) : nil
        while failure == nil {
            let state = pa_stream_get_state(s)
            if state == PA_STREAM_READY { break }
            if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED {
                failure = String(cString: pa_strerror(pa_context_errno(connection.context)))
                break
            }
            pa_threaded_mainloop_wait(ml)
        }
        if failure == nil, let name = pa_stream_get_device_name(s) { connectedTo = String(cString: name) }
        if let failure {
            pa_stream_set_state_callback(s, nil, nil)
            pa_stream_set_moved_callback(s, nil, nil)
            pa_stream_unref(s)
            scratch.deallocate()
            throw EngineError(.device, "PulseAudio: cannot open \(capture ? "capture" : "playback") stream on \(device ?? "the default device"): \(failure)")
        }
    }

    deinit { scratch.deallocate() }

    /// Server callback (main-loop thread): copy what arrived into the ring. No allocation.
    ///
    /// A fragment the ring has no room for yet stays in the stream's own queue (up to the
    /// server's maxlength, 4 MiB: 11 s of 48 kHz stereo) and is read again shortly: a burst
    /// (a pipe or network source, the backlog of a stall) is delayed, never dropped, while
    /// the render thread drains the ring faster than real time.
    private func onReadable(_ s: OpaquePointer) {
        defer { backlogBytes.store(pa_stream_readable_size(s), ordering: .relaxed) }
        while pa_stream_readable_size(s) > 0 {
            var data: UnsafeRawPointer?
            var bytes = 0
            guard pa_stream_peek(s, &data, &bytes) == 0 else { return }
            if bytes == 0 { break }
            let frames = bytes / (4 * channels)
            if let data {
                if ring.space < frames && frames <= ring.capacity {
                    retryRead(s)
                    break
                }
                let written = ring.write(interleaved: data.assumingMemoryBound(to: Float.self), frames: frames)
                if written < frames { lostFrames.add(frames - written, ordering: .relaxed) }
            } else {
                // A hole in the stream: the server lost data; keep time with silence.
                lostFrames.add(frames, ordering: .relaxed)
            }
            pa_stream_drop(s)
        }
        progressed.signal()
    }

    /// Server callback (main-loop thread): fill the server's buffer from the ring.
    private func onWritable(_ s: OpaquePointer, _ requested: Int) {
        var left = requested
        while left > 0 {
            var data: UnsafeMutableRawPointer?
            var bytes = left
            guard pa_stream_begin_write(s, &data, &bytes) == 0, let data, bytes > 0 else { return }
            let frames = bytes / (4 * channels)
            let p = data.assumingMemoryBound(to: Float.self)
            let got = ring.read(interleaved: p, frames: frames)
            if got > 0 { progressed.signal() }
            if got < frames && ending.load(ordering: .relaxed) {
                // Everything is delivered: the server gets what is left and no silence after
                // it, so its buffer runs dry and a drain completes.
                if got > 0 { pa_stream_write(s, data, got * 4 * channels, nil, 0, PA_SEEK_RELATIVE) } else { pa_stream_cancel_write(s) }
                return
            }
            if got < frames {
                (p + got * channels).update(repeating: 0, count: (frames - got) * channels)
                if started.load(ordering: .relaxed) { lostFrames.add(frames - got, ordering: .relaxed) }
            }
            pa_stream_write(s, data, frames * 4 * channels, nil, 0, PA_SEEK_RELATIVE)
            left -= frames * 4 * channels
        }
    }

    /// Reads again in 5 ms what the ring could not take (main-loop thread).
    private func retryRead(_ s: OpaquePointer) {
        let due = pa_rtclock_now() + 5000
        if let retry {
            pa_context_rttime_restart(connection.context, retry, due)
            return
        }
        retry = pa_context_rttime_new(connection.context, due, { _, _, _, userdata in
            let st = Unmanaged<PulseStream>.fromOpaque(userdata!).takeUnretainedValue()
            if !st.closed { st.onReadable(st.stream) }
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Starts (false) or pauses (true) the stream.
    func cork(_ paused: Bool) {
        let ml = connection.mainloop
        pa_threaded_mainloop_lock(ml)
        if closed { pa_threaded_mainloop_unlock(ml); return }
        if let op = pa_stream_cork(stream, paused ? 1 : 0, nil, nil) { pa_operation_unref(op) }
        pa_threaded_mainloop_unlock(ml)
        if !paused { started.store(true, ordering: .relaxed) }
    }

    /// Server-reported latency in seconds (capture: how long data waited at the server).
    func latency() -> Double? {
        let ml = connection.mainloop
        pa_threaded_mainloop_lock(ml)
        defer { pa_threaded_mainloop_unlock(ml) }
        guard !closed else { return nil }
        var usec: pa_usec_t = 0
        var negative: Int32 = 0
        guard pa_stream_get_latency(stream, &usec, &negative) == 0 else { return nil }
        return negative != 0 ? 0 : Double(usec) / 1e6
    }

    /// Playback: waits until the server played what it was given, at most `timeout` seconds.
    /// Whether it did (false: the server stalled, or the stream failed).
    @discardableResult
    func drain(timeout: Double) -> Bool {
        ending.store(true, ordering: .relaxed)
        let deadline = monotonicSeconds() + timeout
        while ring.available > 0 && monotonicSeconds() < deadline && !failed.load(ordering: .relaxed) { usleep(2000) }
        let ml = connection.mainloop
        pa_threaded_mainloop_lock(ml)
        var drained = false
        if let op = pa_stream_drain(stream, { _, _, userdata in
            pa_threaded_mainloop_signal(OpaquePointer(userdata!), 0)
        }, UnsafeMutableRawPointer(ml)) {
            while pa_operation_get_state(op) == PA_OPERATION_RUNNING && monotonicSeconds() < deadline && !failed.load(ordering: .relaxed) {
                pa_threaded_mainloop_unlock(ml)
                usleep(2000)
                pa_threaded_mainloop_lock(ml)
            }
            drained = pa_operation_get_state(op) == PA_OPERATION_DONE && !failed.load(ordering: .relaxed)
            pa_operation_unref(op)
        }
        pa_threaded_mainloop_unlock(ml)
        return drained
    }

    /// Disconnects the stream. Idempotent.
    func close() {
        let ml = connection.mainloop
        pa_threaded_mainloop_lock(ml)
        if closed { pa_threaded_mainloop_unlock(ml); return }
        pa_stream_set_state_callback(stream, nil, nil)
        pa_stream_set_read_callback(stream, nil, nil)
        pa_stream_set_write_callback(stream, nil, nil)
        pa_stream_set_overflow_callback(stream, nil, nil)
        pa_stream_set_underflow_callback(stream, nil, nil)
        pa_stream_set_moved_callback(stream, nil, nil)
        pa_context_set_state_callback(connection.context, nil, nil)
        if let retry, let api = pa_threaded_mainloop_get_api(ml) { api.pointee.time_free(retry) }
        retry = nil
        pa_stream_disconnect(stream)
        pa_stream_unref(stream)
        closed = true
        pa_threaded_mainloop_unlock(ml)
    }
}
