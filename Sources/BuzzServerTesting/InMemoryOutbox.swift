import BuzzServer
import Foundation

/// ``OutboxStore`` over an ``InMemoryStore``'s outbox rows; due by the store's clock.
/// Immediate rows are due at once here (no lease: nothing else would relay them in one process).
public struct InMemoryOutbox: OutboxStore {
    public let store: InMemoryStore
    var clock: any Clock { store.clock }

    public init(store: InMemoryStore) { self.store = store }

    public func deleteRelayed(_ ids: [Int64]) throws {
        let gone = Set(ids)
        store.withState { $0.outbox.removeAll { gone.contains($0.id) } }
    }

    public func relayDue(limit: Int, publish: ([OutboxMessage], [Double]) throws -> Void) throws -> Int {
        let now = clock.now()
        return try store.withState { state in
            let due = state.outbox.filter { ($0.message.availableAt ?? .distantPast) <= now }
                .sorted { ($0.message.availableAt ?? .distantPast, $0.id) < ($1.message.availableAt ?? .distantPast, $1.id) }
                .prefix(limit)
            guard !due.isEmpty else { return 0 }
            try publish(due.map(\.message), due.map { now.timeIntervalSince($0.message.availableAt ?? now) })
            let ids = Set(due.map(\.id))
            state.outbox.removeAll { ids.contains($0.id) }
            return due.count
        }
    }

    public func secondsUntilNextDue() throws -> Double? {
        let now = clock.now()
        return store.withState { state in
            state.outbox.map { ($0.message.availableAt ?? now).timeIntervalSince(now) }.min()
        }
    }
}
