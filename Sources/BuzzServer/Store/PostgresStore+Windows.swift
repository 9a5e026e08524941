import BuzzEngine
import Foundation
import PostgresClient

/// Devices' acknowledgments, and the window decisions they lead to, on PostgreSQL.
///
/// A statement here that finds timers by run id says "held" as `num_nulls(held_at) = 0` and
/// compares the moment as `available_at - now()`: forms no index and no partial index's
/// predicate can serve, so the run id's index finds the rows. Written plainly (`held_at IS
/// NULL`, `available_at > now()`), they let the planner scan all of `outbox_due` or
/// `outbox_held` instead, every timer not yet (or already) due. The outbox's statistics are
/// stale by nature (a queue's size swings), and with them it did: acknowledgments were recorded
/// at a seventh of their rate, each batch reading every timer.
extension PostgresStoreTransaction {
    func recordAcknowledgments(tenantId: String, _ facts: [DeviceAcknowledgment], at: Date) throws -> (acknowledged: Int, released: Int, held: Int) {
        let latest = DeviceAcknowledgment.latest(facts)
        guard !latest.isEmpty else { return (0, 0, 0) }
        // Each device's latest time of each kind wins (GREATEST ignores NULLs); a row is written
        // only when one of them moves forward, so repeats cost no write and return nothing.
        let rows = try db.query("""
            INSERT INTO acknowledgments AS a (tenant_id, subscriber_id, local_id, device, message_id, acknowledged_at, scheduled_ts, released_ts)
            SELECT \(tenantId), s, l, d, NULLIF(m, ''), \(at)::timestamptz,
                   NULLIF(st, '')::timestamptz, NULLIF(rt, '')::timestamptz
            FROM unnest(\(latest.map(\.subscriberId))::text[], \(latest.map(\.localId))::text[], \(latest.map(\.device))::text[],
                        \(latest.map { $0.messageId ?? "" })::text[], \(latest.map { $0.scheduledAt?.postgresText ?? "" })::text[],
                        \(latest.map { $0.releasedAt?.postgresText ?? "" })::text[]) AS u(s, l, d, m, st, rt)
            ON CONFLICT (tenant_id, subscriber_id, local_id, device) DO UPDATE SET
                acknowledged_at = CASE WHEN EXCLUDED.scheduled_ts > coalesce(a.scheduled_ts, '-infinity') THEN EXCLUDED.acknowledged_at
                                       ELSE a.acknowledged_at END,
                scheduled_ts = GREATEST(a.scheduled_ts, EXCLUDED.scheduled_ts),
                released_ts = GREATEST(a.released_ts, EXCLUDED.released_ts),
                message_id = coalesce(a.message_id, EXCLUDED.message_id)
            WHERE EXCLUDED.scheduled_ts > coalesce(a.scheduled_ts, '-infinity') OR EXCLUDED.released_ts > coalesce(a.released_ts, '-infinity')
            RETURNING subscriber_id, local_id, device, message_id, acknowledged_at, scheduled_ts, released_ts
            """)
        var byKey: [String: (scheduled: Bool, released: Bool)] = [:]
        for entry in latest {
            byKey[entry.subscriberId + "\u{0}" + entry.localId + "\u{0}" + entry.device] = (entry.scheduledAt != nil, entry.releasedAt != nil)
        }
        var counts = (acknowledged: 0, released: 0, held: 0)
        var changed: [(subscriberId: String, holding: PlanHolding)] = []
        for row in rows {
            let subscriberId: String = try row.decode("subscriber_id")
            let holding = PlanHolding(localId: try row.decode("local_id"), device: try row.decode("device"), messageId: try row.decode("message_id"),
                                      acknowledgedAt: try row.decode("acknowledged_at"), scheduledAt: try row.decode("scheduled_ts"),
                                      releasedAt: try row.decode("released_ts"), deviceCounts: false)
            let key = subscriberId + "\u{0}" + holding.localId + "\u{0}" + holding.device
            if byKey[key]?.scheduled == true { counts.acknowledged += 1 }
            if byKey[key]?.released == true { counts.released += 1 }
            changed.append((subscriberId, holding))
        }
        counts.held = try holdWindows(tenantId: tenantId, changed)
        return counts
    }

    func acknowledgments(tenantId: String, windows: [(subscriberId: String, runId: UUID, localId: String)]) throws -> [UUID: [PlanHolding]] {
        guard !windows.isEmpty else { return [:] }
        var out: [UUID: [PlanHolding]] = [:]
        // Exact (tenant, subscriber, local id) keys: the primary key's leading columns (0005);
        // a device counts when it is an active device of the subscriber (UNIQUE (tenant_id, token)).
        for row in try db.query("""
            SELECT u.r, a.local_id, a.device, a.message_id, a.acknowledged_at, a.scheduled_ts, a.released_ts,
                   (a.device = '' OR EXISTS (SELECT 1 FROM devices d WHERE d.tenant_id = a.tenant_id AND d.token = a.device
                                             AND d.subscriber_id = a.subscriber_id AND d.active)) AS counts
            FROM unnest(\(windows.map(\.subscriberId))::text[], \(windows.map(\.localId))::text[], \(windows.map(\.runId))::uuid[]) AS u(s, l, r)
            JOIN acknowledgments a ON a.tenant_id = \(tenantId) AND a.subscriber_id = u.s AND a.local_id = u.l
            """) {
            out[try row.decode("r", as: UUID.self), default: []].append(PlanHolding(
                localId: try row.decode("local_id"), device: try row.decode("device"), messageId: try row.decode("message_id"),
                acknowledgedAt: try row.decode("acknowledged_at"), scheduledAt: try row.decode("scheduled_ts"),
                releasedAt: try row.decode("released_ts"), deviceCounts: try row.decode("counts")))
        }
        return out
    }

    func recordWindowDecisions(_ decisions: [WindowDecision]) throws {
        guard !decisions.isEmpty else { return }
        try db.execute("""
            INSERT INTO window_decisions (run_id, local_id, decided_at, acknowledged_at)
            SELECT * FROM unnest(\(decisions.map(\.runId))::uuid[], \(decisions.map(\.localId))::text[],
                                 \(decisions.map(\.decidedAt))::timestamptz[], \(decisions.map(\.acknowledgedAt))::timestamptz[])
            ON CONFLICT DO NOTHING
            """)
    }

    func windowDecisions(runIds: [UUID]) throws -> [UUID: [WindowDecision]] {
        guard !runIds.isEmpty else { return [:] }
        var out: [UUID: [WindowDecision]] = [:]
        // A held timer whose moment has passed is the decision it stands for (0012), decided at
        // its moment with the time of the acknowledgment that held it.
        for row in try db.query("""
            SELECT run_id, local_id, decided_at, acknowledged_at FROM window_decisions WHERE run_id = ANY(\(runIds)::uuid[])
            UNION ALL
            SELECT run_id, window_local_id, available_at, held_at FROM outbox
            WHERE run_id = ANY(\(runIds)::uuid[]) AND num_nulls(held_at) = 0 AND available_at - now() <= interval '0'
            """) {
            let decision = WindowDecision(runId: try row.decode("run_id"), localId: try row.decode("local_id"),
                                          decidedAt: try row.decode("decided_at"), acknowledgedAt: try row.decode("acknowledged_at"))
            out[decision.runId, default: []].append(decision)
        }
        return out
    }

    func claimWindowDecisions(decidedBefore: Date, limit: Int) throws -> [UUID] {
        var ids: [UUID] = try db.query("""
            SELECT run_id FROM window_decisions WHERE decided_at < \(decidedBefore)
            ORDER BY decided_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
            """).map { try $0.decode("run_id") }
        // Held timers past their moment (and the completion delay): decisions too.
        if ids.count < limit {
            ids += try db.query("""
                SELECT run_id FROM outbox WHERE held_at IS NOT NULL AND available_at < \(decidedBefore)
                ORDER BY available_at LIMIT \(limit - ids.count) FOR UPDATE SKIP LOCKED
                """).map { try $0.decode("run_id") }
        }
        return Array(Set(ids))
    }

    func deleteWindowDecisions(runIds: [UUID]) throws {
        guard !runIds.isEmpty else { return }
        try db.execute("DELETE FROM window_decisions WHERE run_id = ANY(\(runIds)::uuid[])")
        try db.execute("DELETE FROM outbox WHERE run_id = ANY(\(runIds)::uuid[]) AND num_nulls(held_at) = 0 AND available_at - now() <= interval '0'")
    }

    /// Holds the timers of the windows `changed` acknowledgments settle, and undoes the holds
    /// their releases may have ended (0012); returns how many timers were newly held.
    ///
    /// A timer is held when a device that counts for the subscriber (an active device of that
    /// subscriber, or an acknowledgment naming none) holds the plan by its latest words, for
    /// the plan's own message, before the moment: then the moment needs no work. A release
    /// undoes the hold (the moment checks every device again). The devices are read `FOR
    /// SHARE`, so a logout committing meanwhile either waits for this transaction (and its
    /// trigger then undoes the hold) or is seen here.
    private func holdWindows(tenantId: String, _ changed: [(subscriberId: String, holding: PlanHolding)]) throws -> Int {
        // A device's word holds the plan by its latest words, for the plan's own message.
        func holdsPlan(_ word: PlanHolding) -> Bool {
            word.holds && (word.messageId.map { $0 == PayloadBuilder.messageId(localId: word.localId) } ?? true)
        }
        var counting: Set<String> = []
        let tokens = Set(changed.filter { holdsPlan($0.holding) }.map(\.holding.device).filter { !$0.isEmpty })
        if !tokens.isEmpty {
            for row in try db.query("""
                SELECT token, subscriber_id FROM devices WHERE tenant_id = \(tenantId) AND token = ANY(\(tokens.sorted())::text[]) AND active
                ORDER BY token FOR SHARE
                """) {
                counting.insert(try row.decode("token", as: String.self) + "\u{0}" + row.decode("subscriber_id", as: String.self))
            }
        }
        // The earliest acknowledgment that holds each window, and the windows a release may free.
        var holds: [String: Date] = [:], releases: [String: Date] = [:]
        for (subscriberId, word) in changed {
            let window = word.localId + "\u{0}" + subscriberId
            if !word.holds {
                if let at = word.releasedAt { releases[window] = min(releases[window] ?? at, at) }
                continue
            }
            guard holdsPlan(word), word.device.isEmpty || counting.contains(word.device + "\u{0}" + subscriberId) else { continue }
            holds[window] = min(holds[window] ?? word.acknowledgedAt, word.acknowledgedAt)
        }
        // The windows' timers, found by run id alone (a local id is `<runId>/<step>`), then
        // changed by id: plans that cannot go wrong however stale the outbox's statistics.
        // A timer another transaction has locked is skipped, not waited for: at its moment the
        // scheduler holds it while it publishes, and an acknowledgment that waited would stay
        // uncommitted (unseen) while `fallback-check` decides the window. The fleet's
        // last-second phones showed that: 12 of 750 got the fallback beside their own
        // notification. Skipped, the window is decided at its moment as before.
        let runIds = Set(changed.compactMap { word in
            word.holding.localId.firstIndex(of: "/").flatMap { UUID(uuidString: String(word.holding.localId[..<$0])) }
        })
        guard !runIds.isEmpty, !holds.isEmpty || !releases.isEmpty else { return 0 }
        // A release the device made before the moment frees a held timer even after the moment
        // (until the window completer has written the decision): the scheduler then claims it
        // at once and the fallback goes out late rather than never (``PlanHolding/asOf(_:)``).
        var hold: [Date: [Int64]] = [:], free: [Int64] = []
        for row in try db.query("""
            SELECT id, window_tenant_id, window_subscriber_id, window_local_id, num_nulls(held_at) = 0 AS held,
                   available_at, available_at - now() > interval '0' AS ahead FROM outbox
            WHERE run_id = ANY(\(runIds.sorted { $0.uuidString < $1.uuidString })::uuid[])
            ORDER BY id FOR UPDATE SKIP LOCKED
            """) {
            guard let tenant: String = try row.decode("window_tenant_id"), tenant == tenantId,
                  let subscriberId: String = try row.decode("window_subscriber_id"), let localId: String = try row.decode("window_local_id") else { continue }
            let window = localId + "\u{0}" + subscriberId, held: Bool = try row.decode("held"), ahead: Bool = try row.decode("ahead")
            if let at = holds[window], !held, ahead { hold[at, default: []].append(try row.decode("id")) }
            if let at = releases[window], held, try ahead || at < row.decode("available_at", as: Date.self) { free.append(try row.decode("id")) }
        }
        if !free.isEmpty {
            try db.execute("UPDATE outbox SET held_at = NULL WHERE id = ANY(\(free.sorted())::bigint[]) AND num_nulls(held_at) = 0")
        }
        var held = 0
        for (at, ids) in hold.sorted(by: { $0.key < $1.key }) {
            held += try db.execute("""
                UPDATE outbox SET held_at = \(at) WHERE id = ANY(\(ids.sorted())::bigint[]) AND num_nulls(held_at) = 1 AND available_at - now() > interval '0'
                """)
        }
        return held
    }
}
