import AudioGraphTestSupport
import Foundation
import Testing

/// What some tests need from the machine. Without it they are reported as skipped, with the
/// reason, rather than passing without having run (Tools/test provides all of it).
extension Trait where Self == ConditionTrait {
    /// flite makes the speech fixtures, sox mixes and converts them.
    static var flite: Self {
        .enabled(if: Flite.isAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/sox"),
                 "flite or sox is not installed (Tools/install-deps installs them)")
    }

    /// The private PulseAudio daemon with its pipe source that Tools/test starts.
    static var pulseDaemon: Self {
        .enabled(if: PulseIntegrationTests.daemon(), "no private PulseAudio daemon (run the suite with Tools/test)")
    }

    /// ../shared/corpus: in the developers' workspace, not in a user's clone.
    static var sharedCorpus: Self {
        .enabled(if: FileManager.default.fileExists(atPath: CLI.sharedCorpus.path),
                 "../shared/corpus is absent (a user's clone has no shared corpus)")
    }

    /// script(1), which runs the CLI in a pseudo-terminal.
    static var pseudoTerminal: Self {
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "script(1) is not installed (util-linux)")
    }
}

extension CLI {
    /// The shared corpus beside the repository.
    static let sharedCorpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
}
