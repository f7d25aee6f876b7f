import AudioGraphCore
import Foundation
import Synchronization

/// Brings a capture stream back after the server went away (a PulseAudio or PipeWire
/// restart), for `pulse-source`'s `reconnect` parameter.
///
/// Its own thread sleeps until the render thread reports a failed stream, then retries
/// the connection every half second, up to `patience` seconds. A new stream writes into
/// the same ring, so the render thread only swaps one object; every blocking libpulse call
/// and every allocation stays on this thread. Streams it replaced are kept until the end,
/// so their last release (which joins a libpulse thread) never happens on the audio path.
final class PulseReconnector: @unchecked Sendable {
    /// Everything needed to open the stream again.
    struct Target {
        var device: String?
        var rate: Int
        var channels: Int
        var latency: Double
        /// Where each new stream reports being moved to another device.
        var movedTo: Locked<String?>?
    }

    let target: Target
    let patience: Double
    private let ring: FrameRing
    private let worker = WorkerThread(name: "audiograph.pulse-reconnect")
    private var wake: Wakeup { worker.wake }
    private var closing: Bool { worker.isStopping }
    private let lostStream = Atomic<Bool>(false)
    /// Set when a new stream waits in `replacement`; cleared by the render thread on taking it.
    let ready = Atomic<Bool>(false)
    /// Set when `patience` ran out without a server.
    let gaveUp = Atomic<Bool>(false)
    private let replacement = Locked<PulseStream?>(nil)
    private var retired: [PulseStream] = []  // reconnect thread only
    private var current: PulseStream          // reconnect thread only
    /// Reports for the delivery thread (gap lengths, failed attempts).
    let reports = Locked<[String]>([])

    /// Signalled when a replacement is ready or the reconnector gave up (the render thread
    /// waits on it while the server is gone); new streams signal it as the first did.
    private let progressed: Readiness

    init(first: PulseStream, target: Target, patience: Double, ring: FrameRing, progressed: Readiness) {
        current = first
        self.progressed = progressed
        self.target = target
        self.patience = patience
        self.ring = ring
        let box = UncheckedSendable(self)
        worker.start { _ in box.value.run() }
    }

    /// Render thread: the stream failed and its audio is used up. Lock-free.
    func streamLost() {
        guard !lostStream.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wake.signal()
    }

    /// Render thread, once `ready` is seen: the new stream (a lock taken once per reconnection).
    func takeReplacement() -> PulseStream? {
        let s = replacement.withLock { r in
            defer { r = nil }
            return r
        }
        ready.store(false, ordering: .releasing)
        return s
    }

    /// Stops retrying and closes every stream it made; waits for its thread. Not real-time.
    func close() {
        worker.requestStop()
        worker.join()
        replacement.withLock { $0?.close(); $0 = nil }
    }

    private func run() {
        while !closing {
            wake.wait(timeout: 1) { lostStream.load(ordering: .acquiring) || closing }
            guard lostStream.load(ordering: .acquiring), !closing else { continue }
            current.close()
            retired.append(current)
            let began = monotonicSeconds()
            var attempts = 0
            var lastError = ""
            while !closing {
                attempts += 1
                do throws(EngineError) {
                    let stream = try reopen()
                    current = stream
                    replacement.withLock { $0 = stream }
                    lostStream.store(false, ordering: .releasing)
                    ready.store(true, ordering: .releasing)
                    progressed.signal()
                    let gap = monotonicSeconds() - began
                    reports.withLock {
                        $0.append(String(format: "PulseAudio: capture resumed on %@ after a %.1f s gap (%d attempts); the gap is not in the stream",
                                         target.device ?? "the default source", gap, attempts))
                    }
                    break
                } catch {
                    lastError = error.message
                }
                if monotonicSeconds() - began > patience {
                    reports.withLock { $0.append("PulseAudio: no server after \(Int(patience)) s of retrying: \(lastError)") }
                    gaveUp.store(true, ordering: .releasing)
                    progressed.signal()
                    return
                }
                wake.wait(timeout: 0.5) { closing }
            }
        }
    }

    /// Connects again and opens a running capture stream into the same ring.
    private func reopen() throws(EngineError) -> PulseStream {
        let connection = try PulseConnection(name: "audiograph", timeout: 1)
        let sources = connection.devices(sinks: false)
        let wanted = target.device ?? connection.defaults().source
        guard sources.contains(where: { $0.name == wanted }) else {
            throw EngineError(.device, "PulseAudio: the server is back but has no source \"\(wanted)\"")
        }
        let stream = try PulseStream(connection: connection, capture: true, device: wanted, rate: target.rate,
                                     channels: target.channels, latency: target.latency, ring: ring, progressed: progressed,
                                     movedTo: target.movedTo)
        stream.cork(false)
        return stream
    }
}
