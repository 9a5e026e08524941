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
    /// (delivered at commit).
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

    public func relayDue(limit: Int, publish: ([OutboxMessage], [Double]) throws -> Void) throws -> RelayRound {
        try pool.withTransaction { db in
            // One statement claims and deletes the due rows and settles the windows a device
            // holds (``WindowSettlement``'s rule, in SQL: an acknowledgment of this plan's
            // message, not released since, from a device that still counts for the
            // subscriber); it returns the bodies of the rest only. A throw from `publish`
            // rolls back the delete and the decisions.
            let rows = try db.query("""
                WITH claimed AS (
                    DELETE FROM outbox WHERE id = ANY(ARRAY(
                        SELECT id FROM outbox WHERE available_at <= now() ORDER BY available_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED))
                    RETURNING id, exchange, routing_key, message_id, body, items, run_id, window_tenant_id, window_subscriber_id,
                              window_local_id, window_message_id, available_at
                ), standing AS (
                    -- Per row, not a join: the planner sees one row in a CTE and would compare
                    -- every claimed row with every held one.
                    SELECT c.*, CASE WHEN c.run_id IS NOT NULL AND c.window_message_id IS NOT NULL THEN (
                        SELECT min(a.acknowledged_at) FROM acknowledgments a
                        WHERE a.tenant_id = c.window_tenant_id AND a.subscriber_id = c.window_subscriber_id AND a.local_id = c.window_local_id
                          AND (a.message_id IS NULL OR a.message_id = c.window_message_id)
                          AND a.scheduled_ts IS NOT NULL AND (a.released_ts IS NULL OR a.released_ts < a.scheduled_ts)
                          AND (a.device = '' OR EXISTS (SELECT 1 FROM devices d WHERE d.tenant_id = a.tenant_id AND d.token = a.device
                                                                                   AND d.subscriber_id = a.subscriber_id AND d.active))
                    ) END AS held_since
                    FROM claimed c
                ), decided AS (
                    INSERT INTO window_decisions (run_id, local_id, decided_at, acknowledged_at)
                    SELECT run_id, window_local_id, now(), held_since FROM standing WHERE held_since IS NOT NULL
                    ON CONFLICT DO NOTHING
                )
                SELECT id, available_at, EXTRACT(EPOCH FROM (clock_timestamp() - available_at)) AS late, held_since IS NOT NULL AS settled,
                       exchange, routing_key, message_id, CASE WHEN held_since IS NULL THEN body END AS body, items
                FROM standing
                """)
            guard !rows.isEmpty else { return RelayRound() }
            var claimed: [(id: Int64, due: Date, message: OutboxMessage?, late: Double)] = []
            claimed.reserveCapacity(rows.count)
            for row in rows {
                let settled: Bool = try row.decode("settled")
                claimed.append((try row.decode("id"), try row.decode("available_at"),
                                settled ? nil : OutboxMessage(exchange: try row.decode("exchange"), routingKey: try row.decode("routing_key"),
                                                              messageId: try row.decode("message_id"), body: try row.decode("body"),
                                                              items: try row.decode("items")),
                                try row.decode("late")))
            }
            // RETURNING order is not guaranteed: due order again.
            claimed.sort { ($0.due, $0.id) < ($1.due, $1.id) }
            let published = claimed.compactMap(\.message)
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
