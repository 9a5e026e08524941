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
            // One statement claims and deletes the due rows, and reads what the devices have said
            // of each claimed window's plan (a row per acknowledgment, per row rather than a join:
            // the planner sees one row in a CTE and would compare every claimed row with every
            // acknowledgment). The windows go to `settle` in the same transaction, so a throw from
            // it or from `publish` rolls back the delete and the decisions alike. Settling records
            // decisions and writes no run state; were it to write one, the verbose form is the one
            // every release reads, whatever the store's setting.
            let rows = try db.query("""
                WITH claimed AS (
                    DELETE FROM outbox WHERE id = ANY(ARRAY(
                        SELECT id FROM outbox WHERE available_at <= now() ORDER BY available_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED))
                    RETURNING id, available_at, exchange, routing_key, message_id, body, items, run_id, window_tenant_id,
                              window_subscriber_id, window_local_id
                )
                SELECT c.id, c.available_at, now() AS claimed_at, EXTRACT(EPOCH FROM (clock_timestamp() - c.available_at)) AS late,
                       c.exchange, c.routing_key, c.message_id AS row_message_id, c.body, c.items, c.run_id, c.window_tenant_id,
                       c.window_subscriber_id, c.window_local_id, h.*
                FROM claimed c LEFT JOIN LATERAL (
                    SELECT \(PlanHolding.columns) FROM acknowledgments a
                    WHERE c.run_id IS NOT NULL AND a.tenant_id = c.window_tenant_id AND a.subscriber_id = c.window_subscriber_id
                      AND a.local_id = c.window_local_id
                ) h ON true
                """)
            guard !rows.isEmpty else { return RelayRound() }
            var claimed: [(id: Int64, due: Date, row: PostgresRow, late: Double)] = []
            claimed.reserveCapacity(rows.count)
            var windows: [Int64: DueWindow] = [:]
            for row in rows {
                let id: Int64 = try row.decode("id")
                let holding = try row.text("local_id") == nil ? nil : try PlanHolding(row: row)
                if let holding, windows[id] != nil {  // the same row again, with another acknowledgment
                    windows[id]?.holdings.append(holding)
                    continue
                }
                claimed.append((id, try row.decode("available_at"), row, try row.decode("late")))
                if let runId = try row.decode("run_id", as: UUID?.self), let tenantId = try row.decode("window_tenant_id", as: String?.self),
                   let subscriberId = try row.decode("window_subscriber_id", as: String?.self),
                   let localId = try row.decode("window_local_id", as: String?.self) {
                    windows[id] = DueWindow(rowId: id, window: OutboxMessage.Window(tenantId: tenantId, subscriberId: subscriberId, runId: runId,
                                                                                    localId: localId),
                                            holdings: holding.map { [$0] } ?? [])
                }
            }
            let settled = windows.isEmpty ? [] : try settle(windows.values.sorted { $0.rowId < $1.rowId },
                                                            PostgresStoreTransaction(db: db, definitions: DefinitionCache(), stateForm: .verbose),
                                                            try rows[0].decode("claimed_at"))
            // RETURNING order is not guaranteed: due order again.
            claimed.sort { ($0.due, $0.id) < ($1.due, $1.id) }
            var published: [OutboxMessage] = []
            published.reserveCapacity(claimed.count - settled.count)
            for (id, _, row, _) in claimed where !settled.contains(id) {
                published.append(OutboxMessage(exchange: try row.decode("exchange"), routingKey: try row.decode("routing_key"),
                                               messageId: try row.decode("row_message_id"), body: try row.decode("body"), items: try row.decode("items")))
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
