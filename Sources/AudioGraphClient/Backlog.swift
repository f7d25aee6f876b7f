/// Items waiting in arrival order, taken from the front in constant time: taking the first
/// moves an index, not the rest (a server's answer of a few minutes is thousands of frames,
/// and `removeFirst` made reading them quadratic). The taken ones are dropped once they are
/// at least 1,024 and half the array, and at once when none waits.
struct Backlog<Element> {
    private var items: [Element] = []
    private var head = 0

    /// No item waits.
    var isEmpty: Bool { head == items.count }

    /// The waiting items, oldest first.
    var waiting: ArraySlice<Element> { items[head...] }

    /// How many taken items the array still holds (dropped as above).
    var takenHeld: Int { head }

    mutating func append(_ item: Element) { items.append(item) }

    /// The oldest item; there must be one.
    mutating func takeFirst() -> Element {
        let first = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && 2 * head >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return first
    }
}
