import BuzzKitWire
import BuzzServerCore
import Foundation
import PostgresClient

/// Devices' words on plans, and their order against the decision at each window's moment.
///
/// A window's fallback is decided by `fallback-check` at its moment from the acknowledgments
/// recorded by then; an acknowledgment recorded after that decision must not count, or the
/// phone that sent it shows its local copy beside the fallback. The two are ordered by the
/// plan's row in `local_plans`: the decision holds it `FOR UPDATE` from before it reads the
/// acknowledgments until it commits, and recording takes `FOR KEY SHARE` on it first. An
/// acknowledgment recorded first is seen by the decision; one that arrives during the decision
/// waits for it, then reads `fallback_decided_at` from the row's new version (PostgreSQL
/// re-reads a row it waited to lock), and is late if the fallback was decided.
extension PostgresStoreTransaction {
    func recordAcknowledgments(tenantId: String, _ facts: [DeviceAcknowledgment], at: Date) throws -> AcknowledgmentOutcome {
        let latest = DeviceAcknowledgment.latest(facts)
        guard !latest.isEmpty else { return AcknowledgmentOutcome() }
        // Only for a plan of that subscriber (its row, by primary key): an acknowledgment
        // naming any other local id, or a plan swept with its run, stores nothing. Planned each
        // time (see `PostgresQuery.plannedEachTime()`): prepared while the tables were small, its
        // generic plan read 286 buffers an acknowledgment in the fleet all at once, not 13. The
        // run's status is a subquery, not a join: the planner then weighs no join orders, and
        // planning took about 0.15 ms instead of 0.23 (`pg_stat_statements`, sustained windows).
        var plans: [String: (subscriberId: String?, fallbackDecided: Bool, runCancelled: Bool)] = [:]
        for row in try db.query(("""
            SELECT p.local_id, p.subscriber_id, p.fallback_decided_at IS NOT NULL AS decided,
                   coalesce((SELECT r.status = \(RunStatus.cancelled.rawValue) FROM runs r WHERE r.id = p.run_id), false) AS cancelled
            FROM local_plans p
            WHERE p.tenant_id = \(tenantId) AND p.local_id = ANY(\(Array(Set(latest.map(\.localId))).sorted())::text[])
            ORDER BY p.local_id FOR KEY SHARE OF p
            """ as PostgresQuery).plannedEachTime()) {
            plans[try row.decode("local_id")] = (try row.decode("subscriber_id"), try row.decode("decided"), try row.decode("cancelled"))
        }
        var late: Set<String> = [], cancelled: Set<String> = []
        var words: [DeviceAcknowledgment.Latest] = []
        for var word in latest {
            guard let plan = plans[word.localId], plan.subscriberId == word.subscriberId else { continue }
            if plan.runCancelled {
                // Its run was cancelled: the phone is told to drop the plan; nothing to count.
                if word.scheduledAt != nil { cancelled.insert(word.localId) }
                continue
            }
            if plan.fallbackDecided {
                // After the fallback: the acknowledgment is late; a release is still recorded.
                if word.scheduledAt != nil { late.insert(word.localId) }
                word.scheduledAt = nil
                if word.releasedAt == nil { continue }
            }
            words.append(word)
        }
        guard !words.isEmpty else { return AcknowledgmentOutcome(late: late, cancelled: cancelled) }
        // Each device's latest time of each kind wins (GREATEST ignores NULLs); a row is written
        // only when one of them moves forward, so repeats cost no write and return nothing.
        let rows = try db.query("""
            INSERT INTO acknowledgments AS a (tenant_id, subscriber_id, local_id, device, message_id, acknowledged_at, scheduled_ts, released_ts)
            SELECT \(tenantId), s, l, d, NULLIF(m, ''), \(at)::timestamptz,
                   NULLIF(st, '')::timestamptz, NULLIF(rt, '')::timestamptz
            FROM unnest(\(words.map(\.subscriberId))::text[], \(words.map(\.localId))::text[], \(words.map(\.device))::text[],
                        \(words.map { $0.messageId ?? "" })::text[], \(words.map { $0.scheduledAt?.postgresText ?? "" })::text[],
                        \(words.map { $0.releasedAt?.postgresText ?? "" })::text[]) AS u(s, l, d, m, st, rt)
            ON CONFLICT (tenant_id, subscriber_id, local_id, device) DO UPDATE SET
                acknowledged_at = CASE WHEN EXCLUDED.scheduled_ts > coalesce(a.scheduled_ts, '-infinity') THEN EXCLUDED.acknowledged_at
                                       ELSE a.acknowledged_at END,
                scheduled_ts = GREATEST(a.scheduled_ts, EXCLUDED.scheduled_ts),
                released_ts = GREATEST(a.released_ts, EXCLUDED.released_ts),
                message_id = coalesce(a.message_id, EXCLUDED.message_id)
            WHERE EXCLUDED.scheduled_ts > coalesce(a.scheduled_ts, '-infinity') OR EXCLUDED.released_ts > coalesce(a.released_ts, '-infinity')
            RETURNING subscriber_id, local_id, device
            """)
        var byKey: [String: (scheduled: Bool, released: Bool)] = [:]
        for entry in words {
            byKey[entry.subscriberId + "\u{0}" + entry.localId + "\u{0}" + entry.device] = (entry.scheduledAt != nil, entry.releasedAt != nil)
        }
        var outcome = AcknowledgmentOutcome(late: late, cancelled: cancelled)
        for row in rows {
            let key = try row.decode("subscriber_id", as: String.self) + "\u{0}" + row.decode("local_id", as: String.self) + "\u{0}" + row.decode("device", as: String.self)
            if byKey[key]?.scheduled == true { outcome.acknowledged += 1 }
            if byKey[key]?.released == true { outcome.released += 1 }
        }
        return outcome
    }

    func lockWindowsForDecision(tenantId: String, localIds: [String]) throws {
        guard !localIds.isEmpty else { return }
        _ = try db.query("""
            SELECT 1 FROM local_plans WHERE tenant_id = \(tenantId) AND local_id = ANY(\(Array(Set(localIds)).sorted())::text[])
            ORDER BY local_id FOR UPDATE
            """)
    }

    func markFallbacksDecided(tenantId: String, localIds: [String], at: Date) throws {
        guard !localIds.isEmpty else { return }
        try db.execute("""
            UPDATE local_plans SET fallback_decided_at = \(at)
            WHERE tenant_id = \(tenantId) AND local_id = ANY(\(localIds)::text[]) AND fallback_decided_at IS NULL
            """)
    }
}
