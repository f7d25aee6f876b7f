@testable import AudioGraphDSP
import AudioGraphTestSupport
import Foundation
import Testing

/// How the echo canceller's delay estimator confirms a delay.
@Suite struct EchoDelayEstimatorTests {
    /// The first delay, like a changed one, is taken only when three estimates in a row agree
    /// (0.25 s apart, from the first half second on: at 1.0 s, not at 0.75 s). Two agreeing
    /// estimates of 0 ms for an echo 118 ms late (the end earcon's echo under an answer's
    /// first quarter second) had placed the filter wrong for a whole run.
    @Test func theFirstDelayWaitsForThreeAgreeingEstimates() throws {
        let rate = 16000.0
        var estimator = try #require(EchoDelayEstimator(rate: rate, maxSeconds: 1))
        let ref = Signals.noise(rms: 0.1, seconds: 2, rate: rate, seed: 3)
        let lag = 800  // 50 ms
        var first: (at: Double, delay: Double)?
        for i in ref.indices {
            let mic = i >= lag ? 0.5 * ref[i - lag] : 0
            if let d = estimator.add(mic: mic, ref: ref[i]), first == nil { first = (Double(i) / rate, d) }
        }
        let found = try #require(first, "a delay is found within 2 s")
        #expect(abs(found.delay - 0.05) < 0.001, "the echo's delay: \(found.delay) s")
        #expect(found.at > 0.9 && found.at < 1.1, "confirmed by the third estimate, at 1.0 s: at \(found.at) s")
    }
}
