import AudioGraphCore
import Foundation
import Synchronization

/// The standard descriptors 0, 1 and 2 as the process was started with them.
///
/// A program started with one closed (`audiograph run ... >&-`, a supervisor that closes
/// stdin) would give that number to the first file it opens: the JSON events went into
/// whatever took descriptor 1 (an eventfd here: "Invalid argument"; a WAV being written
/// could as well). A closed one is filled with /dev/null before anything else opens, and a
/// closed standard output is said at the end (``outputWasClosed``).
enum StandardStreams {
    private static let closedOutput = Atomic<Bool>(false)
    /// Why a line written with ``writeOutput(_:)`` failed, the first time (not a reader that
    /// closed its end: `| head` wants no more).
    private static let outputFailure = Mutex<String?>(nil)

    /// Writes `text` to standard output without going through C's stream; a failure is kept
    /// for the end (``outputFailureReason``).
    static func writeOutput(_ text: String) {
        guard let e = Array(text.utf8).withUnsafeBytes({ writeFully(STDOUT_FILENO, $0) }), e != EPIPE else { return }
        outputFailure.withLock { $0 = $0 ?? String(cString: strerror(e)) }
    }

    /// Writes `text` to standard error; a failure (a full disk behind `2>log`) is dropped:
    /// there is nowhere left to say it, and the run goes on (Foundation's
    /// `FileHandle.write(_:)` trapped on it).
    static func writeError(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { writeFully(STDERR_FILENO, $0) }
    }

    /// The first failure of ``writeOutput(_:)``, in the system's words.
    static var outputFailureReason: String? { outputFailure.withLock { $0 } }

    /// Whether descriptor 1 was closed when the process started.
    static var outputWasClosed: Bool { closedOutput.load(ordering: .relaxed) }

    /// Fills closed standard descriptors with /dev/null. Call first thing in `main`.
    static func reserve() {
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) < 0 && errno == EBADF {
            let opened = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY)  // the lowest free number: `fd`
            if opened >= 0 && opened != fd {
                dup2(opened, fd)
                close(opened)
            }
            if fd == 1 { closedOutput.store(true, ordering: .relaxed) }
        }
    }

    /// The line a run or a command that writes standard output ends with when it was closed.
    static let closedOutputLine = "cannot write standard output: it was closed when audiograph started (nothing was written to it)"
}

/// `print` in this target: the text goes to standard output through
/// ``StandardStreams/writeOutput(_:)`` (descriptor 1 directly, a failure kept for the end),
/// not through C's `stdout` stream, which `main` points at /dev/null so that C libraries'
/// stray text (PocketSphinx's grammar scanner echoes what it cannot read) stays out of it.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    StandardStreams.writeOutput(items.map { "\($0)" }.joined(separator: separator) + terminator)
}
