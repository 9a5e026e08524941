import BuzzServer
import BuzzKitWire
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

    public func relayDue(limit: Int, settle: ([DueWindow], any StoreTransaction, Date) throws -> Set<Int64>,
                         publish: ([OutboxMessage], [Double]) throws -> Void) throws -> RelayRound {
        let now = clock.now
        // One store transaction: the settled windows' decisions roll back if publishing fails.
        return try store.transaction { tx in
            let due = store.withState { state in
                state.outbox.filter { ($0.message.availableAt ?? .distantPast) <= now }
                    .sorted { ($0.message.availableAt ?? .distantPast, $0.id) < ($1.message.availableAt ?? .distantPast, $1.id) }
                    .prefix(limit)
            }
            guard !due.isEmpty else { return RelayRound() }
            // Each window with its plan's acknowledgments, read as the PostgreSQL claim reads them.
            let windows = try due.compactMap { row in
                try row.message.window.map { window in
                    let key = WindowKey(subscriberId: window.subscriberId, runId: window.runId, localId: window.localId)
                    return DueWindow(rowId: row.id, window: window,
                                     holdings: try tx.acknowledgments(tenantId: window.tenantId, windows: [key])[window.runId] ?? [])
                }
            }
            let settled = windows.isEmpty ? [] : try settle(windows, tx, now)
            let published = due.filter { !settled.contains($0.id) }.map(\.message)
            try publish(published, due.map { now.timeIntervalSince($0.message.availableAt ?? now) })
            let ids = Set(due.map(\.id))
            store.withState { $0.outbox.removeAll { ids.contains($0.id) } }
            return RelayRound(published: published.count, settled: settled.count)
        }
    }

    public func secondsUntilNextDue() throws -> Double? {
        let now = clock.now
        return store.withState { state in
            state.outbox.map { ($0.message.availableAt ?? now).timeIntervalSince(now) }.min()
        }
    }

    /// Rows removed from memory are gone at once: nothing to reclaim.
    public func vacuum() throws {}
}
