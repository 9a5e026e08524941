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
            // Each window with its plan's acknowledgments, read as the PostgreSQL claim reads them:
            // one lookup per tenant of the round.
            var windows: [DueWindow] = []
            for (tenantId, rows) in Dictionary(grouping: due.filter { $0.message.window != nil }, by: { $0.message.window!.tenantId }) {
                let holdings = try tx.acknowledgments(tenantId: tenantId, windows: rows.compactMap(\.message.window).map {
                    WindowKey(subscriberId: $0.subscriberId, runId: $0.runId, localId: $0.localId)
                })
                windows += rows.compactMap { row in
                    row.message.window.map { DueWindow(rowId: row.id, window: $0, holdings: holdings[$0.runId] ?? []) }
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
