import AudioGraphTestSupport
import Foundation
import Testing

/// What some tests need from the machine. Without it they are reported as skipped, with the
/// reason, rather than passing without having run (Tools/test provides all of it).
extension Trait where Self == ConditionTrait {
    /// flite makes the speech fixtures.
    static var flite: Self {
        .enabled(if: Flite.isAvailable, "flite is not installed (Tools/install-deps installs it)")
    }
}
