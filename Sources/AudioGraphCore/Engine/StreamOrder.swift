/// Puts the render thread's events and the events of nodes that run behind the audio (a
/// recognizer decoding on its own thread) into one sequence, in stream order: each event
/// after every event about earlier audio.
///
/// The render thread's events arrive first and in order; a lagging node's events come later,
/// each stamped with the audio it had consumed. A render event decided at stream time `d` is
/// held until every lagging node is complete through `d` (its events about the audio before
/// `d` are then all in), and a lagging node's event goes out ahead of the render events
/// decided after its stamp. At equal times the render event comes first (an `utterance-end`
/// before the final it closes). The render thread may run ahead of a lagging node only as far
/// as the node's bounded input queue lets it, so the events held are bounded too; `limit`
/// bounds them regardless.
///
/// Within a block, nodes queue their events in render order, not time order (the vad's
/// `speech-start` before end-of-speech's `utterance-end` decided just before it): render
/// items are kept sorted by time, and none goes out before the render thread has finished
/// the block it belongs to (`renderedThrough`), nor does a lagging node's event stamped later.
///
/// Delivery thread only. Render items without a time (engine state markers) are never held
/// behind a lagging node, only behind the items queued before them, and stay where they came.
struct StreamOrder<RenderItem> {
    /// Everything either stream can deliver next.
    enum Item {
        case render(RenderItem)
        case lagging(EngineEvent)
    }

    private var render: [(item: RenderItem, at: Double?)] = []
    private var renderHead = 0
    private var lagging: [Int: (events: [StreamEvent], head: Int, through: Double)] = [:]
    /// Times closer than this are the same instant (nodes compute them in different ways;
    /// a sample at 192 kHz is 5 µs).
    static var sameTime: Double { 1e-6 }
    /// Render items held at most; past it the oldest go out without waiting.
    let limit: Int
    /// Stream time through which the render thread has queued every event.
    var renderedThrough = Double.infinity

    init(limit: Int = 16384) { self.limit = limit }

    /// Queues a render-thread item decided at stream time `at` (nil: never held back).
    mutating func add(_ item: RenderItem, at: Double?) {
        var i = render.count
        if let at {
            while i > renderHead, let before = render[i - 1].at, before > at + Self.sameTime { i -= 1 }
        }
        render.insert((item, at), at: i)
    }

    /// Takes a lagging node's new events and how far they are complete.
    mutating func add(_ report: StreamEvents, from node: Int) {
        var q = lagging[node] ?? ([], 0, -.infinity)
        q.events += report.events
        q.through = max(q.through, report.through)
        lagging[node] = q
    }

    /// Whether render items wait for a lagging node.
    var isHolding: Bool { renderHead < render.count }

    /// The next item in stream order, or nil if what comes next is not known yet.
    /// `flush`: every source has finished; give out everything that is left, in order.
    mutating func next(flush: Bool = false) -> Item? {
        var best: (node: Int, at: Double)?
        for (node, q) in lagging where q.head < q.events.count {
            let at = q.events[q.head].at
            if best == nil || at < best!.at || (at == best!.at && node < best!.node) { best = (node, at) }
        }
        let head = renderHead < render.count ? render[renderHead] : nil
        if let best, flush || best.at <= renderedThrough + Self.sameTime {
            // Ahead of a render event decided later; behind a state marker (no time).
            let goesFirst = head.map { h in h.at.map { best.at < $0 - Self.sameTime } ?? false } ?? true
            if goesFirst { return .lagging(takeLagging(best.node)) }
        }
        guard let head else { return nil }
        let through = min(renderedThrough, lagging.values.map(\.through).min() ?? .infinity)
        guard flush || head.at.map({ $0 <= through + Self.sameTime }) ?? true || render.count - renderHead > limit else { return nil }
        renderHead += 1
        if renderHead == render.count || renderHead >= 1024 {
            render.removeFirst(renderHead)
            renderHead = 0
        }
        return .render(head.item)
    }

    private mutating func takeLagging(_ node: Int) -> EngineEvent {
        var q = lagging[node]!
        let e = q.events[q.head].event
        q.head += 1
        if q.head == q.events.count || q.head >= 1024 {
            q.events.removeFirst(q.head)
            q.head = 0
        }
        lagging[node] = q
        return e
    }
}
