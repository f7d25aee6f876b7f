/// An event of a kind Core's vocabulary does not name: a node module's own, carried by
/// ``EngineEvent/custom(node:event:)``. The conversation's events (wake word, assistant
/// states, earcons, barge-in) are `AudioGraphConversation`'s `ConversationEvent`.
public protocol CustomEvent: Sendable {
    /// Whether `other` is the same event.
    func isEqual(to other: any CustomEvent) -> Bool
}

extension CustomEvent where Self: Equatable {
    /// Equal when `other` is of this type and `==`.
    public func isEqual(to other: any CustomEvent) -> Bool { (other as? Self) == self }
}

/// A ``CustomEvent`` as an ``EngineEvent`` holds it: equatable, so events compare as the
/// others do.
public struct AnyCustomEvent: Sendable, Equatable {
    /// The event.
    public let base: any CustomEvent

    /// Wraps `base`.
    public init(_ base: any CustomEvent) { self.base = base }

    public static func == (a: AnyCustomEvent, b: AnyCustomEvent) -> Bool { a.base.isEqual(to: b.base) }
}
