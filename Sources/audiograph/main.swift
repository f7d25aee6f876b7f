import Foundation

// The audiograph command line: see `audiograph --help`. All logic lives in the
// AudioGraph library; this target parses arguments, prints, and maps errors to exit codes.
exit(CLI.main(Array(CommandLine.arguments.dropFirst())))
