import AudioGraph
import AudioGraphCore
import AudioGraphTestSupport
import Testing

/// The mixer's sums and channel rules, sample by sample, through the node harness.
@Suite struct MixerTests {
    static func format(_ channels: Int) -> StreamFormat { StreamFormat(sampleRate: 16000, channelCount: channels) }

    func mix(_ inputs: [[[Float]]], channels: Int? = nil) throws -> [[Float]] {
        let params: [String: ParameterValue] = channels.map { ["channels": .number(Double($0))] } ?? [:]
        let h = try NodeHarness("mixer", params, inputs: inputs.map { Self.format($0.count) }, registry: .builtin)
        h.push(buses: inputs)
        h.endInput()
        return h.takeOutput()
    }

    @Test func inputsAreSummed() throws {
        #expect(try mix([[[0.1, 0.2, -0.5]], [[0.3, -0.2, 0.25]]]) == [[0.1 + 0.3, 0, -0.25]])
    }

    @Test func manyChannelsToOneIsTheirMean() throws {
        #expect(try mix([[[1, 0.5], [0, -0.5]]], channels: 1) == [[0.5, 0]])
    }

    @Test func oneChannelToManyIsCopied() throws {
        #expect(try mix([[[0.25, -1]]], channels: 3) == [[0.25, -1], [0.25, -1], [0.25, -1]])
    }

    @Test func threeChannelsToTwoFoldByIndexAndAverage() throws {
        // Input i goes to output i mod 2: outputs 0 gets inputs 0 and 2 (averaged), 1 gets input 1.
        #expect(try mix([[[1, 0], [0.5, 0.5], [0, 1]]], channels: 2) == [[0.5, 0.5], [0.5, 0.5]])
    }

    @Test func defaultChannelsAreInputZeros() throws {
        let out = try mix([[[0.5]], [[0.25], [0.75]]])
        #expect(out == [[0.5 + 0.5]], "a stereo input mixed to input 0's mono: its mean added")
    }
}
