import Foundation
import Testing

@_spi(Tuning) @testable import AudioGraphDSP

/// The vad's fitted model and the file `Tools/vad_model fit` writes agree on its shape.
@Suite struct SpeechModelTests {
    typealias W = SpeechModel.Weights

    @Test func theWeightsFitTheFeatures() {
        let f = SpeechModel.featureCount
        #expect(W.mean.count == f && W.scale.count == f)
        #expect(W.hiddenWeights.count == W.hiddenCount * f)
        #expect(W.hiddenBias.count == W.hiddenCount && W.outputWeights.count == W.hiddenCount)
    }

    @Test func theFeatureDumpMeasuresEveryHop() {
        // One second at 16 kHz: a 25 ms frame ends at each 10 ms hop from 30 ms on.
        let x = (0..<16000).map { Float(sin(Double($0) * 0.3)) * 0.1 }
        let dump = SpeechFeatureDump.frames(x, rate: 16000)
        #expect(dump.count == 98 * SpeechFeatureDump.width)
        #expect(!dump.contains { !$0.isFinite })
        #expect(abs(dump[SpeechFeatureDump.width] - dump[0] - 0.01) < 1e-6)
    }
}
