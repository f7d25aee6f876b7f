@testable import AudioGraphDSP
import Foundation
import Testing

/// Tuning constants move only in a build made for measuring them: a user's environment
/// cannot change what a normal build does.
@Suite struct TuningOverrideTests {
    @Test func aNormalBuildIgnoresTheEnvironment() {
        setenv("AG_TUNE_testConstant", "7", 1)
        setenv("AG_TUNE_PS", "-lw 99", 1)
        defer { unsetenv("AG_TUNE_testConstant"); unsetenv("AG_TUNE_PS") }
        #expect(tuned("testConstant", 0.5) == 0.5)
        #expect(tuned("testConstant", Float(0.25)) == 0.25)
        #expect(tunedArguments(["-lw", "6.5"]) == ["-lw", "6.5"])
    }
}
