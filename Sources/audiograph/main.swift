import AudioGraphCore
import Foundation

// The audiograph command line: see `audiograph --help`. All logic lives in the
// AudioGraph library; this target parses arguments, prints, and maps errors to exit codes.

// A file past the size limit (`ulimit -f`) is a write error the node names ("File too
// large"), the run ending as any failed write ends it, not a process killed without a word.
signal(SIGXFSZ, SIG_IGN)
StandardStreams.reserve()
CStandardOutput.discard()  // this target's `print` writes descriptor 1 itself (StandardStreams.swift)
let arguments = Array(CommandLine.arguments.dropFirst())
exit(CLI.reportingStandardOutput(CLI.main(arguments), command: arguments.first))
