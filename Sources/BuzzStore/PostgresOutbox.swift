import BuzzServerCore
import Foundation
import PostgresClient

/// ``OutboxStore`` on PostgreSQL: `FOR UPDATE SKIP LOCKED`, so any number of schedulers run
/// side by side; due means `available_at <= now()` on the database's clock.
public struct PostgresOutbox: OutboxStore {
    public let pool: PostgresPool

    public init(pool: PostgresPool) { self.pool = pool }

    /// Inserts `messages` on `db` (inside the caller's transaction), each tagged with its run
    /// id (`runIds`, nil or left out for immediate messages), and returns the rows. Immediate
    /// rows get the relay lease (``Outbox/relayLease``); a timer due soon also sends a NOTIFY
    /// (delivered at commit). `window_message_id` is written for schedulers from before the
    /// settling step moved out of the claim statement, which still read it during a rolling
    /// upgrade; this one derives the message id from the local id.
    @discardableResult
    public static func insert(_ messages: [OutboxMessage], runIds: [UUID?] = [], now: Date, on db: PostgresConnection) throws -> [Outbox.Row] {
        guard !messages.isEmpty else { return [] }
        let runIds = runIds + Array(repeating: nil, count: max(0, messages.count - runIds.count))
        let available = messages.map { $0.availableAt ?? now.addingTimeInterval(Outbox.relayLease) }
        let windows = messages.map(\.window)
        let rows = try db.query("""
            INSERT INTO outbox (available_at, exchange, routing_key, message_id, body, run_id, window_tenant_id, window_subscriber_id, window_local_id,
                                window_message_id, items)
            SELECT a, e, r, m, b, NULLIF(x, '')::uuid, NULLIF(wt, ''), NULLIF(ws, ''), NULLIF(wl, ''), NULLIF(wm, ''), n
            FROM unnest(\(available)::timestamptz[], \(messages.map(\.exchange))::text[],
                   \(messages.map(\.routingKey))::text[], \(messages.map(\.messageId))::text[], \(messages.map(\.body))::bytea[],
                   \(runIds.map { $0?.lowercasedText ?? "" })::text[], \(windows.map { $0?.tenantId ?? "" })::text[],
                   \(windows.map { $0?.subscriberId ?? "" })::text[], \(windows.map { $0?.localId ?? "" })::text[],
                   \(windows.map { $0?.messageId ?? "" })::text[], \(messages.map(\.items))::int[]) AS u(a, e, r, m, b, x, wt, ws, wl, wm, n)
            RETURNING id, message_id
            """)
        // RETURNING order is not guaranteed: match rows to messages by message id.
        var idsByMessage: [String: Int64] = [:]
        for row in rows { idsByMessage[try row.decode("message_id")] = try row.decode("id", as: Int64.self) }
        if messages.contains(where: { $0.availableAt.map { $0.timeIntervalSince(now) < Outbox.notifyHorizon } ?? false }) {
            try db.notify(Outbox.channel)
        }
        return messages.map { Outbox.Row(id: idsByMessage[$0.messageId] ?? -1, message: $0) }
    }

    public func deleteRelayed(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try pool.withConnection { db in _ = try db.execute("DELETE FROM outbox WHERE id = ANY(\(ids))") }
    }

    public func relayDue(limit: Int, settle: ([DueWindow], any StoreTransaction, Date) throws -> Set<Int64>,
                         publish: ([OutboxMessage], [Double]) throws -> Void) throws -> RelayRound {
        try pool.withTransaction { db in
            // One statement claims and deletes the due rows; the windows among them go to
            // `settle` in the same transaction, so a throw from it or from `publish` rolls back
            // the delete and the decisions alike.
            let rows = try db.query("""
                DELETE FROM outbox WHERE id = ANY(ARRAY(
                    SELECT id FROM outbox WHERE available_at <= now() ORDER BY available_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED))
                RETURNING id, available_at, now() AS claimed_at, EXTRACT(EPOCH FROM (clock_timestamp() - available_at)) AS late,
                          exchange, routing_key, message_id, body, items, run_id, window_tenant_id, window_subscriber_id, window_local_id
                """)
            guard !rows.isEmpty else { return RelayRound() }
            var claimed: [(id: Int64, due: Date, row: PostgresRow, late: Double)] = []
            claimed.reserveCapacity(rows.count)
            var windows: [DueWindow] = []
            for row in rows {
                let id: Int64 = try row.decode("id")
                claimed.append((id, try row.decode("available_at"), row, try row.decode("late")))
                if let runId = try row.decode("run_id", as: UUID?.self), let tenantId = try row.decode("window_tenant_id", as: String?.self),
                   let subscriberId = try row.decode("window_subscriber_id", as: String?.self),
                   let localId = try row.decode("window_local_id", as: String?.self) {
                    windows.append(DueWindow(rowId: id, window: OutboxMessage.Window(tenantId: tenantId, subscriberId: subscriberId,
                                                                                      runId: runId, localId: localId)))
                }
            }
            let settled = windows.isEmpty ? [] : try settle(windows, PostgresStoreTransaction(db: db, definitions: DefinitionCache()),
                                                            try rows[0].decode("claimed_at"))
            // RETURNING order is not guaranteed: due order again.
            claimed.sort { ($0.due, $0.id) < ($1.due, $1.id) }
            var published: [OutboxMessage] = []
            published.reserveCapacity(claimed.count - settled.count)
            for (id, _, row, _) in claimed where !settled.contains(id) {
                published.append(OutboxMessage(exchange: try row.decode("exchange"), routingKey: try row.decode("routing_key"),
                                               messageId: try row.decode("message_id"), body: try row.decode("body"), items: try row.decode("items")))
            }
            try publish(published, claimed.map(\.late))
            return RelayRound(published: published.count, settled: claimed.count - published.count)
        }
    }

    public func vacuum() throws {
        try pool.withConnection { db in _ = try db.execute("VACUUM (SKIP_LOCKED) outbox") }
    }

    public func secondsUntilNextDue() throws -> Double? {
        try pool.withConnection { db in
            try db.query("SELECT EXTRACT(EPOCH FROM (min(available_at) - clock_timestamp())) AS wait FROM outbox")[0]
                .decode("wait", as: Double?.self)
        }
    }
}
