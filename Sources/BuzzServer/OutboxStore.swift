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
    /// scheduler holds are skipped), passes them to `publish` with how late each is in
    /// seconds, and deletes them once `publish` returns. A throw from `publish` keeps them.
    /// Returns how many were published.
    func relayDue(limit: Int, publish: (_ messages: [OutboxMessage], _ lateness: [Double]) throws -> Void) throws -> Int
    /// Seconds until the next row is due (0 or less when one is due now), nil when empty.
    func secondsUntilNextDue() throws -> Double?
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

    public func relayDue(limit: Int, publish: ([OutboxMessage], [Double]) throws -> Void) throws -> Int {
        try pool.withTransaction { db in
            let rows = try db.query("""
                SELECT id, exchange, routing_key, message_id, body,
                       EXTRACT(EPOCH FROM (clock_timestamp() - available_at)) AS late
                FROM outbox WHERE available_at <= now()
                ORDER BY available_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED
                """)
            guard !rows.isEmpty else { return 0 }
            var ids: [Int64] = [], messages: [OutboxMessage] = [], lateness: [Double] = []
            for row in rows {
                ids.append(try row.decode("id"))
                messages.append(OutboxMessage(exchange: try row.decode("exchange"), routingKey: try row.decode("routing_key"),
                                              messageId: try row.decode("message_id"), body: try row.decode("body")))
                lateness.append(try row.decode("late", as: Double.self))
            }
            try publish(messages, lateness)
            try db.execute("DELETE FROM outbox WHERE id = ANY(\(ids))")
            return rows.count
        }
    }

    public func secondsUntilNextDue() throws -> Double? {
        try pool.withConnection { db in
            try db.query("SELECT EXTRACT(EPOCH FROM (min(available_at) - clock_timestamp())) AS wait FROM outbox")[0]
                .decode("wait", as: Double?.self)
        }
    }
}
