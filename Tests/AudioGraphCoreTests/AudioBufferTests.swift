import Testing

@testable import AudioGraphCore

@Suite struct AudioBufferTests {
    @Test func planesAreSeparateAndSilentAtStart() {
        let b = AudioBuffer(format: StreamFormat(sampleRate: 48000, channelCount: 2), frameCapacity: 4)
        #expect(b.frameLength == 0 && b.frameCapacity == 4)
        b.channel(0).update(repeating: 1, count: 4)
        #expect((0..<4).allSatisfy { b.channel(1)[$0] == 0 }, "writing channel 0 must not touch channel 1")
    }

    @Test func copiesFramesAtOffsets() {
        let f = StreamFormat(sampleRate: 16000, channelCount: 1)
        let a = AudioBuffer(format: f, frameCapacity: 8), b = AudioBuffer(format: f, frameCapacity: 8)
        for i in 0..<8 { a.channel(0)[i] = Float(i) }
        b.copyFrames(from: a, at: 2, to: 1, count: 3)
        #expect([b.channel(0)[0], b.channel(0)[1], b.channel(0)[3], b.channel(0)[4]] == [0, 2, 4, 0])
    }

    @Test func formatDescribesItself() {
        #expect(StreamFormat(sampleRate: 44100, channelCount: 2).description == "44100 Hz stereo")
        #expect(StreamFormat(sampleRate: 16000, channelCount: 1).description == "16000 Hz mono")
    }
}
