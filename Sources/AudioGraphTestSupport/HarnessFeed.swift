import AudioGraphCore

/// The source that feeds one input bus of the node under a ``NodeHarness``: it plays what
/// the harness staged for the block (audio and markers), and ends when told.
final class HarnessFeed: AudioNode {
    /// A feed type producing `format`, marking `markers`, live or not.
    static func descriptor(markers: Set<StreamMarker.Kind>, isLive: Bool) -> NodeDescriptor {
        NodeDescriptor(
            type: "harness-feed", summary: "Plays what a NodeHarness stages (tests).", role: .source,
            parameters: [ParameterSpec("rate", .number(nil), required: true, help: "sample rate"),
                         ParameterSpec("channels", .integer(1...64), required: true, help: "channels")],
            isLive: isLive, markers: markers.sorted { $0.rawValue < $1.rawValue },
            make: { p throws(GraphError) in
                HarnessFeed(StreamFormat(sampleRate: p.number("rate"), channelCount: p.integer("channels")))
            })
    }

    let format: StreamFormat
    /// What the next block plays (set by the harness; `frameLength` frames, its markers).
    var staged: AudioBuffer
    var ending = false

    init(_ format: StreamFormat) {
        self.format = format
        staged = AudioBuffer(format: format, frameCapacity: 1)
    }

    func outputFormats(for inputs: [StreamFormat]) throws(GraphError) -> [StreamFormat] { [format] }

    func prepare(_ context: PrepareContext) throws(EngineError) {
        staged = AudioBuffer(format: format, frameCapacity: context.maxFrames)
    }

    func process(_ io: inout ProcessIO) -> FlowStatus {
        let out = io.outputs[0]
        if ending { return .endOfStream }
        out.copyFrames(from: staged, count: staged.frameLength)
        out.frameLength = staged.frameLength
        out.copyMarkers(from: staged)
        return .ok
    }
}
