@preconcurrency import Glibc

/// C's `stdout` stream, which C libraries write to on their own: PocketSphinx's JSGF scanner
/// echoes what it cannot read there (`=go;` for a grammar line that starts with `=`).
///
/// Where descriptor 1 carries data of audiograph's own, written to it with write(2) (`run`'s
/// events, a session process's replies to the server), that text landed in it at exit: after
/// the last JSON line of `run --json`, unterminated, or inside a worker's reply stream.
package enum CStandardOutput {
    /// Sends what is written to the `stdout` stream to /dev/null from now on: C libraries'
    /// stray text and Swift's `print` alike. Descriptor 1 itself stays as it is.
    package static func discard() {
        fflush(stdout)
        if let null = fopen("/dev/null", "w") { stdout = null }
    }
}
