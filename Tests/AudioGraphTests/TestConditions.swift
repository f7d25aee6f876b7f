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
}
