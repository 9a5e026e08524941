import Foundation
import PostgresClient

/// The outbox and timer port, outside the pipeline's transactions (rows are written inside
/// them with ``StoreTransaction/enqueue(_:runIds:now:)``): what the fast path and the
/// scheduler need to move rows to the broker. ``PostgresOutbox`` is the real one;
/// ``InMemoryOutbox`` works on an ``InMemoryStore``.
public protocol OutboxStore: Sendable {
    /// Deletes rows the fast path has published (confirmed).
    func deleteRelayed(_ ids: [Int64]) throws
    /// In one transaction: takes up to `limit` rows due now, in due order (rows another
    /// scheduler holds are skipped), settles the local windows among them that a device holds
    /// (``WindowSettlement``: recorded, not published), passes the rest to `publish`, with how
    /// late each claimed row is in seconds, and deletes them all once `publish` returns. A
    /// throw from `publish` keeps them (and the decisions roll back).
    func relayDue(limit: Int, publish: (_ messages: [OutboxMessage], _ lateness: [Double]) throws -> Void) throws -> RelayRound
    /// Seconds until the next row is due (0 or less when one is due now), nil when empty.
    func secondsUntilNextDue() throws -> Double?
}

/// What one ``OutboxStore/relayDue(limit:publish:)`` round did with the rows it claimed.
public struct RelayRound: Sendable, Equatable {
    /// Rows published to the broker.
    public var published: Int
    /// Local windows settled "scheduled on device" instead (``WindowSettlement``).
    public var settled: Int

    public init(published: Int = 0, settled: Int = 0) { (self.published, self.settled) = (published, settled) }

    /// Every row the round claimed.
    public var claimed: Int { published + settled }
}

/// ``OutboxStore`` on PostgreSQL: `FOR UPDATE SKIP LOCKED`, so any number of schedulers run
/// side by side; due means `available_at <= now()` on the database's clock.
public struct PostgresOutbox: OutboxStore {
    public let pool: PostgresPool

    public init(pool: PostgresPool) { self.pool = pool }

    public func deleteRelayed(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try pool.withConnection { db in _ = try db.execute("DELETE FROM outbox WHERE id = ANY(\(ids))") }
    }

    public func relayDue(limit: Int, publish: ([OutboxMessage], [Double]) throws -> Void) throws -> RelayRound {
        try pool.withTransaction { db in
            // Claimed and deleted in one statement (one pass over the rows); a throw from
            // `publish` rolls the delete back.
            let rows = try db.query("""
                DELETE FROM outbox WHERE id = ANY(ARRAY(
                    SELECT id FROM outbox WHERE available_at <= now() ORDER BY available_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED))
                RETURNING id, exchange, routing_key, message_id, body, items, run_id, window_tenant_id, window_subscriber_id, window_local_id,
                          available_at, EXTRACT(EPOCH FROM (clock_timestamp() - available_at)) AS late, clock_timestamp() AS now
                """)
            guard let first = rows.first else { return RelayRound() }
            var claimed: [(id: Int64, due: Date, message: OutboxMessage, late: Double)] = []
            var windows: [WindowSettlement.Due] = []
            for row in rows {
                let id: Int64 = try row.decode("id")
                claimed.append((id, try row.decode("available_at"),
                                OutboxMessage(exchange: try row.decode("exchange"), routingKey: try row.decode("routing_key"),
                                              messageId: try row.decode("message_id"), body: try row.decode("body"), items: try row.decode("items")),
                                try row.decode("late")))
                if let tenantId: String = try row.decode("window_tenant_id"), let subscriberId: String = try row.decode("window_subscriber_id"),
                   let localId: String = try row.decode("window_local_id"), let runId: UUID = try row.decode("run_id") {
                    windows.append(WindowSettlement.Due(rowId: id, window: OutboxMessage.Window(tenantId: tenantId, subscriberId: subscriberId,
                                                                                               runId: runId, localId: localId)))
                }
            }
            // RETURNING order is not guaranteed: due order again.
            claimed.sort { ($0.due, $0.id) < ($1.due, $1.id) }
            let settled = try WindowSettlement.settle(windows, tx: PostgresStoreTransaction(db: db, definitions: DefinitionCache()),
                                                      now: try first.decode("now"))
            let published = claimed.filter { !settled.contains($0.id) }.map(\.message)
            try publish(published, claimed.map(\.late))
            return RelayRound(published: published.count, settled: settled.count)
        }
    }

    public func secondsUntilNextDue() throws -> Double? {
        try pool.withConnection { db in
            try db.query("SELECT EXTRACT(EPOCH FROM (min(available_at) - clock_timestamp())) AS wait FROM outbox")[0]
                .decode("wait", as: Double?.self)
        }
    }
}
