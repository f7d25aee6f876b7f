import AudioGraph
import AudioGraphCore
import Foundation

/// Command dispatch, help, and the one place errors become exit codes:
/// 0 done, 1 runtime failure, 2 bad usage or bad graph (CONTRACT.md).
enum CLI {
    /// A subcommand as the dispatcher sees it.
    struct Entry: Sendable {
        let name: String
        let abstract: String
        let help: String
        let run: @Sendable ([String]) throws -> Int32

        init<C: Command>(_ c: C.Type) {
            name = C.name
            abstract = C.abstract
            help = C.help
            run = { try C.run($0) }
        }
    }

    static let commands: [Entry] = [Entry(RunCommand.self), Entry(ValidateCommand.self), Entry(NodesCommand.self),
                                    Entry(DotCommand.self), Entry(DevicesCommand.self), Entry(BatchCommand.self),
                                    Entry(TuneCommand.self), Entry(ServeCommand.self)]

    static let overview = """
        audiograph — a streaming dataflow audio engine

        USAGE: audiograph <command> [options]

        COMMANDS:
        \(commands.map { "  " + $0.name.padding($0.name, to: 10) + $0.abstract }.joined(separator: "\n"))

        Run `audiograph <command> --help` for a command's options.
        Exit status: 0 done, 1 runtime failure (audio file, device, recognizer), 2 bad usage or graph.
        """

    static func main(_ arguments: [String]) -> Int32 {
        guard let first = arguments.first else {
            StandardStreams.writeError(overview + "\n")
            return 2
        }
        if first == "--help" || first == "-h" || first == "help" {
            if first == "help", arguments.count > 1, let c = commands.first(where: { $0.name == arguments[1] }) {
                print(c.help)
            } else {
                print(overview)
            }
            return 0
        }
        if first == "--version" {
            print("audiograph 0.1.0")
            return 0
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            return fail(UsageError("unknown command \"\(first)\" (commands: \(commands.map(\.name).joined(separator: ", ")); see --help)"))
        }
        let args = Array(arguments.dropFirst())
        if args.contains("--help") || args.contains("-h") {
            print(command.help)
            return 0
        }
        let status: Int32
        do {
            status = try command.run(args)
        } catch {
            status = fail(error)
        }
        return status
    }

    /// A standard output that could not take what was printed (a full disk behind
    /// `> nodes.md`) or was closed is said on stderr and makes a successful `status` 1. A
    /// reader that closed it (`| head`) wanted no more: not a failure. `failure`: why what
    /// the command wrote its own way (run's output queue) did not get there.
    static func reportingStandardOutput(_ status: Int32, command: String?, failure: String? = nil) -> Int32 {
        let why: String
        if StandardStreams.outputWasClosed && command != "serve" {  // serve writes only its log, on stderr
            why = StandardStreams.closedOutputLine
        } else if let failed = failure ?? StandardStreams.outputFailureReason {
            why = "cannot write standard output: \(failed)"
        } else {
            return status
        }
        StandardStreams.writeError("audiograph: \(why)\n")
        return status == 0 ? 1 : status
    }

    /// Prints `error` as one line per problem on stderr and returns its exit status.
    static func fail(_ error: any Error) -> Int32 {
        let (lines, status) = describe(error)
        for line in lines { printError(line) }
        return status
    }

    /// What `error` says, one line per problem (without the `audiograph: ` prefix), and the
    /// exit status it stands for.
    static func describe(_ error: any Error) -> (lines: [String], status: Int32) {
        switch error {
        case let e as GraphErrors: (e.lines, 2)
        case let e as GraphError: ([e.description], 2)
        case let e as UsageError: ([e.message], 2)
        case let e as EngineError: ([e.description], e.code == .model ? 2 : 1)
        default: ([FileFailure.line(error) ?? "\(error)"], 1)
        }
    }

    static func printError(_ line: String) {
        StandardStreams.writeError("audiograph: \(VisibleText.escaped(line))\n")
    }
}

/// A mistake in the command line itself (exit status 2).
struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// One subcommand: its name, a one-line abstract, full help, and what it does.
protocol Command {
    static var name: String { get }
    static var abstract: String { get }
    static var help: String { get }
    /// Runs with the arguments after the command name; returns the exit status.
    static func run(_ arguments: [String]) throws -> Int32
}

extension String {
    func padding(_ s: String, to width: Int) -> String {
        s + String(repeating: " ", count: max(1, width - s.count))
    }
}
