import BuzzKitWire

/// The persisted queue of events waiting to be posted, oldest first. Every event carries a
/// client id, so a batch resent after an ambiguous failure is deduplicated by the server.
public struct EventQueue: Sendable, Hashable, Codable {
    /// The queued events, oldest first.
    public private(set) var events: [BuzzEvent] = []

    /// An empty queue.
    public init() {}

    /// How many events wait.
    public var count: Int { events.count }

    /// Whether nothing waits.
    public var isEmpty: Bool { events.isEmpty }

    /// Appends `event`; when the queue then holds more than `maximum` events, drops the
    /// oldest ones, sparing acknowledgments while other events remain. Returns the dropped.
    mutating func append(_ event: BuzzEvent, maximum: Int) -> [BuzzEvent] {
        events.append(event)
        var dropped: [BuzzEvent] = []
        while events.count > max(1, maximum) {
            let index = events.firstIndex { $0.event != BuzzEvent.localScheduled } ?? events.startIndex
            dropped.append(events.remove(at: index))
        }
        return dropped
    }

    /// The oldest `limit` events.
    func batch(limit: Int, skipping skipped: Set<String> = []) -> [BuzzEvent] {
        guard !skipped.isEmpty else { return Array(events.prefix(max(1, limit))) }
        return Array(events.lazy.filter { !($0.id.map(skipped.contains) ?? false) }.prefix(max(1, limit)))
    }

    /// Removes the events with these client ids.
    mutating func remove(ids: Set<String>) {
        events.removeAll { $0.id.map(ids.contains) ?? false }
    }

    /// Whether an event with this client id waits.
    func contains(id: String) -> Bool {
        events.contains { $0.id == id }
    }
}
