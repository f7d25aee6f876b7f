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
        /// A lagging node's event and the stream time it was stamped with.
        case lagging(EngineEvent, at: Double)
    }

    /// Items waiting to go out, oldest first; taken from the front without shifting the rest.
    struct Pending<Element> {
        private(set) var items: [Element] = []
        private(set) var head = 0

        var first: Element? { head < items.count ? items[head] : nil }
        var count: Int { items.count - head }

        /// Inserts `e` before the waiting items for which `goesAfter` holds, scanning back
        /// from the newest (most arrive in order: an append).
        mutating func insert(_ e: Element, before goesAfter: (Element) -> Bool) {
            var i = items.count
            while i > head && goesAfter(items[i - 1]) { i -= 1 }
            items.insert(e, at: i)
        }

        mutating func append(contentsOf es: [Element]) { items += es }

        mutating func removeFirst() -> Element {
            let e = items[head]
            head += 1
            if head == items.count || head >= 1024 {  // reclaim the taken prefix now and then
                items.removeFirst(head)
                head = 0
            }
            return e
        }
    }

    /// A lagging node's events not yet delivered, and how far they are complete.
    struct Lagging {
        var events = Pending<StreamEvent>()
        var through = -Double.infinity

        mutating func take(_ report: StreamEvents) {
            events.append(contentsOf: report.events)
            through = max(through, report.through)
        }
    }

    private var render = Pending<(item: RenderItem, at: Double?)>()
    /// By the node's index in the render plan (nil: not a lagging node, or nothing heard yet).
    private var lagging: [Lagging?] = []
    /// Times closer than this are the same instant (nodes compute them in different ways;
    /// a sample at 192 kHz is 5 µs).
    static var sameTime: Double { 1e-6 }
    /// Render items held at most; past it the oldest go out without waiting.
    let limit: Int
    /// Stream time through which the render thread has queued every event.
    var renderedThrough = Double.infinity

    init(limit: Int = 16384) { self.limit = limit }

    /// Queues a render-thread item decided at stream time `at` (nil: never held back), after
    /// the items decided before it or at the same time, and after every untimed one.
    mutating func add(_ item: RenderItem, at: Double?) {
        render.insert((item, at)) { queued in
            guard let at, let q = queued.at else { return false }
            return q > at + Self.sameTime
        }
    }

    /// Takes a lagging node's new events and how far they are complete.
    mutating func add(_ report: StreamEvents, from node: Int) {
        if lagging.count <= node { lagging += Array(repeating: nil, count: node + 1 - lagging.count) }
        if lagging[node] == nil { lagging[node] = Lagging() }
        lagging[node]?.take(report)
    }

    /// Stream time through which every lagging node is complete (infinity without any).
    var laggingThrough: Double { lagging.reduce(Double.infinity) { min($0, $1?.through ?? .infinity) } }

    /// Whether render items wait for a lagging node.
    var isHolding: Bool { render.count > 0 }

    /// The next item in stream order, or nil if what comes next is not known yet.
    /// `flush`: every source has finished; give out everything that is left, in order.
    mutating func next(flush: Bool = false) -> Item? {
        var best: (node: Int, at: Double)?
        for (node, q) in lagging.enumerated() {
            if let at = q?.events.first?.at, best.map({ at < $0.at }) ?? true { best = (node, at) }
        }
        let head = render.first
        if let best, flush || best.at <= renderedThrough + Self.sameTime {
            // Ahead of a render event decided later; behind a state marker (no time).
            let goesFirst = head.map { h in h.at.map { best.at < $0 - Self.sameTime } ?? false } ?? true
            if goesFirst {
                let e = lagging[best.node]!.events.removeFirst()
                return .lagging(e.event, at: e.at)
            }
        }
        guard let head else { return nil }
        let through = lagging.reduce(renderedThrough) { min($0, $1?.through ?? .infinity) }
        guard flush || head.at.map({ $0 <= through + Self.sameTime }) ?? true || render.count > limit else { return nil }
        return .render(render.removeFirst().item)
    }
}
