import BuzzKitWire
import BuzzServerCore
import Foundation
import PostgresClient

extension PostgresStoreTransaction {
    func claimDeliveries(_ requests: [DeliveryRequest], at: Date) throws -> [DeliveryClaim] {
        guard !requests.isEmpty else { return [] }
        // One INSERT for every pair (in the caller's order, so concurrent batches lock alike).
        let inserted = try db.query("""
            INSERT INTO deliveries (tenant_id, run_id, idempotency_key, device_id, kind, status, message_id, created_at)
            SELECT t, NULLIF(rr, '')::uuid, k, d, c, 'pending', NULLIF(mm, ''), \(at)
            FROM unnest(\(requests.map(\.tenantId))::text[], \(requests.map { $0.runId?.lowercasedText ?? "" })::text[],
                        \(requests.map(\.idempotencyKey))::text[], \(requests.map(\.deviceId))::uuid[], \(requests.map(\.kind))::text[],
                        \(requests.map { $0.messageId ?? "" })::text[]) WITH ORDINALITY AS u(t, rr, k, d, c, mm, n)
            ORDER BY n
            ON CONFLICT (idempotency_key, device_id) DO NOTHING
            RETURNING idempotency_key, device_id
            """)
        struct Pair: Hashable { var key: String; var device: UUID }
        var claimed = Set<Pair>()
        for row in inserted { claimed.insert(Pair(key: try row.decode("idempotency_key"), device: try row.decode("device_id"))) }
        let others = requests.filter { !claimed.contains(Pair(key: $0.idempotencyKey, device: $0.deviceId)) }
        var failedSince: [Pair: Date] = [:]
        if !others.isEmpty {
            // Someone else's claims: wait for their transactions (row locks), then read the outcome.
            for row in try db.query("""
                SELECT x.idempotency_key, x.device_id, x.status, x.created_at FROM deliveries x
                JOIN unnest(\(others.map(\.idempotencyKey))::text[], \(others.map(\.deviceId))::uuid[]) AS u(k, d)
                  ON x.idempotency_key = u.k AND x.device_id = u.d
                ORDER BY x.idempotency_key, x.device_id FOR UPDATE OF x
                """) {
                guard try row.decode("status", as: String.self) == "failed" else { continue }
                failedSince[Pair(key: try row.decode("idempotency_key"), device: try row.decode("device_id"))] = try row.decode("created_at")
            }
        }
        return requests.map { request in
            let key = Pair(key: request.idempotencyKey, device: request.deviceId)
            if claimed.contains(key) { return .send }
            // Sent, expired, refused or unregistered: done. Failed earlier (APNs down, retries used up): try again.
            return failedSince[key].map { .retry(since: $0) } ?? .alreadyDone
        }
    }

    func recordDeliveries(_ deliveries: [DeliveryResult], at: Date) throws {
        guard !deliveries.isEmpty else { return }
        // In key order, as the claims take their locks.
        let sorted = deliveries.sorted { a, b in
            a.request.idempotencyKey != b.request.idempotencyKey ? a.request.idempotencyKey < b.request.idempotencyKey
                                                                 : UUID.precedes(a.request.deviceId, b.request.deviceId)
        }
        let (requests, outcomes) = (sorted.map(\.request), sorted.map(\.outcome))
        try db.execute("""
            INSERT INTO deliveries AS x (tenant_id, run_id, idempotency_key, device_id, kind, status, message_id, created_at,
                                         apns_id, http_status, reason, attempts, sent_at)
            SELECT t, NULLIF(rr, '')::uuid, k, d, c, s, NULLIF(mm, ''), \(at), NULLIF(a, ''), NULLIF(h, 0), NULLIF(r, ''), n,
                   CASE WHEN s = 'sent' THEN \(at)::timestamptz END
            FROM unnest(\(requests.map(\.tenantId))::text[], \(requests.map { $0.runId?.lowercasedText ?? "" })::text[],
                        \(requests.map(\.idempotencyKey))::text[], \(requests.map(\.deviceId))::uuid[], \(requests.map(\.kind))::text[],
                        \(requests.map { $0.messageId ?? "" })::text[], \(outcomes.map(\.status))::text[], \(outcomes.map { $0.apnsId ?? "" })::text[],
                        \(outcomes.map { $0.httpStatus ?? 0 })::int[], \(outcomes.map { $0.reason ?? "" })::text[],
                        \(outcomes.map(\.attempts))::int[]) WITH ORDINALITY AS u(t, rr, k, d, c, mm, s, a, h, r, n, o)
            ORDER BY o
            ON CONFLICT (idempotency_key, device_id) DO UPDATE SET
                status = EXCLUDED.status, apns_id = EXCLUDED.apns_id, http_status = EXCLUDED.http_status, reason = EXCLUDED.reason,
                attempts = x.attempts + EXCLUDED.attempts, sent_at = coalesce(EXCLUDED.sent_at, x.sent_at)
            WHERE x.status = 'failed'
            """)
    }

    func finishDeliveries(_ outcomes: [DeliveryResult], at: Date) throws {
        guard !outcomes.isEmpty else { return }
        try db.execute("""
            UPDATE deliveries x SET status = u.s, apns_id = NULLIF(u.a, ''), http_status = NULLIF(u.h, 0), reason = NULLIF(u.r, ''),
                   attempts = x.attempts + u.n, sent_at = CASE WHEN u.s = 'sent' THEN \(at)::timestamptz ELSE x.sent_at END
            FROM unnest(\(outcomes.map(\.request.idempotencyKey))::text[], \(outcomes.map(\.request.deviceId))::uuid[], \(outcomes.map(\.outcome.status))::text[],
                        \(outcomes.map { $0.outcome.apnsId ?? "" })::text[], \(outcomes.map { $0.outcome.httpStatus ?? 0 })::int[],
                        \(outcomes.map { $0.outcome.reason ?? "" })::text[], \(outcomes.map(\.outcome.attempts))::int[]) AS u(k, d, s, a, h, r, n)
            WHERE x.idempotency_key = u.k AND x.device_id = u.d
            """)
    }

    func activity(tenantId: String, runIds: [UUID]) throws -> [UUID: RunActivity] {
        guard !runIds.isEmpty else { return [:] }
        var out: [UUID: RunActivity] = [:]
        for row in try db.query("""
            SELECT x.run_id, x.idempotency_key, x.kind, x.status, x.apns_id, coalesce(x.sent_at, x.created_at) AS at, x.reason,
                   coalesce(right(d.token, 8), '') AS suffix
            FROM deliveries x LEFT JOIN devices d ON d.id = x.device_id
            WHERE x.run_id = ANY(\(runIds)::uuid[]) AND x.tenant_id = \(tenantId) ORDER BY x.id
            """) {
            out[try row.decode("run_id"), default: RunActivity()].deliveries.append(RunActivity.Entry(
                idempotencyKey: try row.decode("idempotency_key"),
                delivery: RunSummary.Delivery(tokenSuffix: try row.decode("suffix"), kind: try row.decode("kind"), status: try row.decode("status"),
                                              apnsId: try row.decode("apns_id"), at: try row.decode("at"), reason: try row.decode("reason"))))
        }
        // The first open of each message; the run's first open is the earliest of them.
        for row in try db.query("""
            SELECT DISTINCT ON (run_id, message_id) run_id, message_id, opened_at FROM opens
            WHERE tenant_id = \(tenantId) AND run_id = ANY(\(runIds)::uuid[]) ORDER BY run_id, message_id, opened_at
            """) {
            let runId: UUID = try row.decode("run_id")
            let open = RunSummary.Opened(messageId: try row.decode("message_id"), at: try row.decode("opened_at"))
            out[runId, default: RunActivity()].opens.append(open)
            if out[runId]?.opened.map({ open.at < $0.at }) ?? true { out[runId]?.opened = open }
        }
        for row in try db.query("""
            SELECT run_id, message_id, action_id, acted_at FROM notification_actions
            WHERE tenant_id = \(tenantId) AND run_id = ANY(\(runIds)::uuid[]) ORDER BY run_id, acted_at, action_id
            """) {
            out[try row.decode("run_id"), default: RunActivity()].actions.append(RunActivity.Action(
                messageId: try row.decode("message_id"), taken: RunSummary.ActionTaken(actionId: try row.decode("action_id"), at: try row.decode("acted_at"))))
        }
        return out
    }

    func planRecipients(runId: UUID) throws -> [DeviceRecord] {
        // Only devices still active for the run's own subscriber: a token logged out (or moved
        // to another subscriber since) gets nothing more for this one, not even a cancel.
        try db.query("""
            SELECT DISTINCT d.id, d.tenant_id, d.subscriber_id, d.platform, d.token, d.topic, d.environment, d."authorization", d.created_at FROM deliveries x
            JOIN devices d ON d.id = x.device_id
            JOIN runs r ON r.id = x.run_id AND r.tenant_id = d.tenant_id AND r.subscriber_id = d.subscriber_id
            WHERE x.run_id = \(runId) AND x.kind = 'plan' AND x.status IN ('sent', 'pending') AND d.active
            ORDER BY d.created_at, d.id
            """).map { try device($0, tenantId: try $0.decode("tenant_id"), subscriberId: try $0.decode("subscriber_id")) }
    }
}
