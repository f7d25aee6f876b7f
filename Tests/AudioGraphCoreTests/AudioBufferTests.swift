import Glibc
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

    /// A queue's blocks are sized for the largest block a bus may carry; only what is
    /// written becomes resident, and the rest reads as silence.
    @Test func aQueuesBlocksAreResidentOnlyWhereWritten() throws {
        let f = StreamFormat(sampleRate: 16000, channelCount: 2)
        let queue = BlockQueue(format: f, maxFrames: 65536, blockCount: 4, policy: .block)
        let small = AudioBuffer(format: f, frameCapacity: 1024)
        small.frameLength = 1024
        for c in 0..<2 { small.channel(c).update(repeating: 0.5, count: 1024) }
        queue.write(small)
        let (index, block) = try #require(queue.next())
        #expect(block.frameLength == 1024 && block.channel(1)[1023] == 0.5)
        let page = Int(getpagesize())
        func residentPages(_ b: AudioBuffer) -> Int {
            let start = Int(bitPattern: b.channel(0)) / page * page
            let bytes = Int(bitPattern: b.channel(0)) - start + b.frameCapacity * b.channelCount * MemoryLayout<Float>.stride
            var flags = [UInt8](repeating: 0, count: (bytes + page - 1) / page)
            #expect(mincore(UnsafeMutableRawPointer(bitPattern: start), bytes, &flags) == 0)
            return flags.filter { $0 & 1 != 0 }.count
        }
        // 2 x 1024 frames written: a page or two per plane of the 2 x 64 pages of the block.
        #expect(residentPages(block) <= 4, "\(residentPages(block)) pages resident")
        #expect(residentPages(queue.blocks[Int(index) ^ 1]) == 0)
        #expect(block.channel(0)[60000] == 0 && block.channel(1)[1024] == 0)
        queue.release(index)
    }
}
