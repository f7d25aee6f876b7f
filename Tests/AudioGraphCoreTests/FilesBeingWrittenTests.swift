import Foundation
import Synchronization
import Testing

@testable import AudioGraphCore

/// One writer per file: another process's lock refuses a writer, but a child this process is
/// starting (which holds a copy of every descriptor until its program runs) does not.
@Suite struct FilesBeingWrittenTests {
    private static func tempFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("written-\(UUID().uuidString).wav").path
    }

    @Test func aChildBeingStartedDoesNotHoldAClosedWritersFile() throws {
        let path = Self.tempFile()
        defer { unlink(path) }
        let stop = Atomic<Bool>(false), started = Atomic<Int>(0)
        let spawner = Thread {
            while !stop.load(ordering: .relaxed) {
                let p = Process()
                p.executableURL = URL(fileURLWithPath: "/bin/true")
                if (try? p.run()) != nil { p.waitUntilExit(); started.add(1, ordering: .relaxed) }
            }
        }
        spawner.start()
        while started.load(ordering: .relaxed) == 0 { usleep(1000) }
        var refused = 0, claims = 0
        while claims < 3000 || started.load(ordering: .relaxed) < 20 {
            let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            try #require(fd >= 0)
            switch FilesBeingWritten.claim(fd) {
            case .held(let id): FilesBeingWritten.release(id)
            case .takenElsewhere: refused += 1
            case .taken, .device: Issue.record("a file nobody else writes")
            }
            close(fd)
            claims += 1
        }
        stop.store(true, ordering: .relaxed)
        #expect(refused == 0, "\(refused) of \(claims) claims refused while \(started.load(ordering: .relaxed)) children started")
    }

    @Test func aLockHeldThroughThePatienceIsAnotherWriters() throws {
        let path = Self.tempFile()
        defer { unlink(path) }
        let holder = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        try #require(holder >= 0 && flock(holder, LOCK_EX) == 0)
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        defer { close(fd) }
        let claim = FilesBeingWritten.claim(fd)
        guard case .takenElsewhere = claim else { Issue.record("claimed: \(claim)"); return }
        close(holder)
        guard case .held(let id) = FilesBeingWritten.claim(fd) else { Issue.record("not claimed once the holder closed"); return }
        FilesBeingWritten.release(id)
    }
}
