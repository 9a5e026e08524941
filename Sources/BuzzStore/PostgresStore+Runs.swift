import BuzzCrypto
import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation
import PostgresClient

extension PostgresStoreTransaction {
    func insertRun(_ run: RunRecord) throws {
        try db.execute("""
            INSERT INTO runs (id, tenant_id, workflow_key, workflow_version, subscriber_id, dry_run, bulk, status, cancel_events, state)
            VALUES (\(run.id), \(run.tenantId), \(run.workflowKey), \(run.workflowVersion), \(run.subscriberId), \(run.dryRun), \(run.bulk),
                    \(run.state.status.rawValue), \(run.cancelEvents)::text[], \(try StoredRunState.encode(run.state, form: stateForm)))
            """)
    }

    func insertRuns(_ runs: [RunRecord]) throws {
        guard runs.count > 1 else { return try runs.forEach(insertRun) }
        let states = PostgresJSONTexts(try runs.map { try StoredRunState.encode($0.state, form: stateForm) })
        // The runs of one workflow share their cancelling events: each distinct list is parsed
        // once (`c`), and each run names its list by number. (Parsed per run, the lists' array
        // input was 1.5-3 % of PostgreSQL's CPU in a sustained window.)
        var lists: [String] = [], numbers: [String: Int] = [:]
        let listOf = runs.map { run in
            let text = run.cancelEvents.postgresText
            if let number = numbers[text] { return number }
            lists.append(text)
            numbers[text] = lists.count
            return lists.count
        }
        try db.execute("""
            WITH c AS MATERIALIZED (SELECT n, x::text[] AS events FROM unnest(\(lists)::text[]) WITH ORDINALITY AS l(x, n))
            INSERT INTO runs (id, tenant_id, workflow_key, workflow_version, subscriber_id, dry_run, bulk, status, cancel_events, state)
            SELECT i, t, k, v, NULLIF(s, ''), d, b, st, c.events, j
            FROM unnest(\(runs.map(\.id))::uuid[], \(runs.map(\.tenantId))::text[], \(runs.map(\.workflowKey))::text[],
                        \(runs.map(\.workflowVersion))::int[], \(runs.map { $0.subscriberId ?? "" })::text[], \(runs.map(\.dryRun))::bool[], \(runs.map(\.bulk))::bool[],
                        \(runs.map(\.state.status.rawValue))::text[], \(listOf)::int[],
                        string_to_array(\(states), chr(30))) AS u(i, t, k, v, s, d, b, st, ci, j)
            JOIN c ON c.n = u.ci
            """)
    }

    func runs(tenantId: String, _ query: RunQuery) throws -> [RunQuery.Found] {
        // Each filter is "not given, or equal": with the values bound, PostgreSQL plans the
        // statement for them and walks the newest-first index of the tenant or the subscriber.
        try db.query("""
            SELECT id, tenant_id, workflow_key, workflow_version, subscriber_id, dry_run, bulk, state,
                   (extract(epoch FROM created_at) * 1000000)::bigint AS created_us
            FROM runs
            WHERE tenant_id = \(tenantId)
              AND (\(query.subscriberId)::text IS NULL OR subscriber_id = \(query.subscriberId))
              AND (\(query.workflowKey)::text IS NULL OR workflow_key = \(query.workflowKey))
              AND (\(query.status)::text IS NULL OR status = \(query.status))
              AND (\(query.after?.createdMicros)::bigint IS NULL
                   OR (created_at, id) < (timestamptz 'epoch' + \(query.after?.createdMicros) * interval '1 microsecond', \(query.after?.id)::uuid))
            ORDER BY created_at DESC, id DESC
            LIMIT \(query.limit)
            """).map { row in
            let run = try StoredRunState.record(row, db: db, definitions: definitions)
            return RunQuery.Found(run: run, cursor: RunQuery.Cursor(createdMicros: try row.decode("created_us"), id: run.id))
        }
    }

    func lockRun(_ id: UUID) throws -> RunRecord? {
        try lockRuns([id]).first
    }

    func run(_ id: UUID, tenantId: String) throws -> RunRecord? {
        try db.query("""
            SELECT id, tenant_id, workflow_key, workflow_version, subscriber_id, dry_run, bulk, state FROM runs WHERE id = \(id) AND tenant_id = \(tenantId)
            """).first.map { try StoredRunState.record($0, db: db, definitions: definitions) }
    }

    func lockRun(_ id: UUID, tenantId: String) throws -> RunRecord? {
        try db.query("""
            SELECT id, tenant_id, workflow_key, workflow_version, subscriber_id, dry_run, bulk, state FROM runs
            WHERE id = \(id) AND tenant_id = \(tenantId) FOR UPDATE
            """).first.map { try StoredRunState.record($0, db: db, definitions: definitions) }
    }

    func lockRuns(_ ids: [UUID]) throws -> [RunRecord] {
        guard !ids.isEmpty else { return [] }
        let sorted = Set(ids).sortedByBytes()
        return try db.query("""
            SELECT id, tenant_id, workflow_key, workflow_version, subscriber_id, dry_run, bulk, state FROM runs
            WHERE id = ANY(\(sorted)::uuid[]) ORDER BY id FOR UPDATE
            """).map { try StoredRunState.record($0, db: db, definitions: definitions) }
    }

    func lockRunHeads(_ ids: [UUID]) throws -> [RunHead] {
        guard !ids.isEmpty else { return [] }
        return try db.query("""
            SELECT id, tenant_id, subscriber_id, status,
                   EXISTS (SELECT 1 FROM cancel_marks m WHERE m.pending AND m.tenant_id = r.tenant_id AND m.subscriber_id = r.subscriber_id
                                                          AND m.event = ANY(r.cancel_events)) AS cancel_pending
            FROM runs r WHERE id = ANY(\(Set(ids).sortedByBytes())::uuid[]) ORDER BY id FOR UPDATE
            """).map { row in
            let status: String = try row.decode("status")
            guard let known = RunStatus(rawValue: status) else { throw ServerError(.internal, "run has an unknown status \"\(status)\"") }
            return RunHead(id: try row.decode("id"), tenantId: try row.decode("tenant_id"), subscriberId: try row.decode("subscriber_id"), status: known,
                           cancelPending: try row.decode("cancel_pending"))
        }
    }

    func planPayloads(tenantId: String, localIds: [String]) throws -> [String: Data] {
        guard !localIds.isEmpty else { return [:] }
        var out: [String: Data] = [:]
        for row in try db.query("""
            SELECT local_id, payload::text AS payload FROM local_plans WHERE tenant_id = \(tenantId) AND local_id = ANY(\(localIds)::text[])
            """) {
            out[try row.decode("local_id")] = Data(try row.decode("payload", as: String.self).utf8)
        }
        return out
    }

    func cancelledRuns(_ ids: [UUID]) throws -> Set<UUID> {
        guard !ids.isEmpty else { return [] }
        let sorted = Set(ids).sortedByBytes()
        var live = Set<UUID>()
        for row in try db.query("SELECT id, status FROM runs WHERE id = ANY(\(sorted)::uuid[]) ORDER BY id FOR SHARE")
        where try row.decode("status", as: String.self) != RunStatus.cancelled.rawValue {
            live.insert(try row.decode("id", as: UUID.self))
        }
        return Set(sorted).subtracting(live)
    }

    func updateRun(_ run: RunRecord) throws {
        try db.execute("""
            UPDATE runs SET status = \(run.state.status.rawValue), cancel_events = \(run.cancelEvents)::text[],
                            state = \(try StoredRunState.encode(run.state, form: stateForm)), updated_at = now()
            WHERE id = \(run.id)
            """)
    }

    func updateRuns(_ runs: [RunRecord]) throws {
        guard runs.count > 1 else { return try runs.forEach(updateRun) }
        let states = PostgresJSONTexts(try runs.map { try StoredRunState.encode($0.state, form: stateForm) })
        let cancels = runs.map(\.cancelEvents.postgresText)
        try db.execute("""
            UPDATE runs r SET status = u.s, state = u.j, updated_at = now(), cancel_events = u.c::text[]
            FROM unnest(\(runs.map(\.id))::uuid[], \(runs.map(\.state.status.rawValue))::text[],
                        string_to_array(\(states), chr(30)), \(cancels)::text[]) AS u(i, s, j, c)
            WHERE r.id = u.i
            """)
    }

    func acknowledgments(tenantId: String, windows: [WindowKey]) throws -> [UUID: [PlanHolding]] {
        guard !windows.isEmpty else { return [:] }
        var out: [UUID: [PlanHolding]] = [:]
        // Exact (tenant, subscriber, local id) keys: the primary key's leading columns (0005).
        for row in try db.query("""
            SELECT u.r, \(PlanHolding.columns)
            FROM unnest(\(windows.map(\.subscriberId))::text[], \(windows.map(\.localId))::text[], \(windows.map(\.runId))::uuid[]) AS u(s, l, r)
            JOIN acknowledgments a ON a.tenant_id = \(tenantId) AND a.subscriber_id = u.s AND a.local_id = u.l
            """) {
            out[try row.decode("r", as: UUID.self), default: []].append(try PlanHolding(row: row))
        }
        return out
    }

    func planDeliveryCounts(localIds: [String]) throws -> [String: Int] {
        guard !localIds.isEmpty else { return [:] }
        var out: [String: Int] = [:]
        for row in try db.query("""
            SELECT idempotency_key, count(*) AS n FROM deliveries
            WHERE idempotency_key = ANY(\(localIds)::text[]) AND kind = 'plan' AND status = 'sent' GROUP BY idempotency_key
            """) {
            out[try row.decode("idempotency_key")] = try row.decode("n", as: Int.self)
        }
        return out
    }

    func openRuns(tenantId: String, subscriberId: String, cancelEvent: String) throws -> [UUID] {
        try db.query("""
            SELECT id FROM runs WHERE tenant_id = \(tenantId) AND subscriber_id = \(subscriberId)
            AND status IN ('running', 'waiting') AND \(cancelEvent) = ANY(cancel_events)
            """).map { try $0.decode("id") }
    }

    func openRuns(tenantId: String, subscriberId: String) throws -> [UUID] {
        try db.query("""
            SELECT id FROM runs WHERE tenant_id = \(tenantId) AND subscriber_id = \(subscriberId) AND status IN ('running', 'waiting')
            """).map { try $0.decode("id") }
    }

    func eraseSubscriber(tenantId: String, subscriberId: String, at: Date) throws {
        // The runs' rows first (they are found through the runs), then the subscriber's own.
        let runs = try db.query("SELECT id FROM runs WHERE tenant_id = \(tenantId) AND subscriber_id = \(subscriberId)")
            .map { try $0.decode("id", as: UUID.self) }
        if !runs.isEmpty {
            for table in ["local_plans", "deliveries", "opens", "notification_actions", "window_decisions", "outbox", "runs"] {
                let column = table == "runs" ? "id" : "run_id"
                // Table and column names come from the lists here, never from input.
                try db.execute("DELETE FROM \(unsafeRaw: table) WHERE \(unsafeRaw: column) = ANY(\(runs)::uuid[])")
            }
        }
        for table in ["devices", "acknowledgments", "opens", "notification_actions", "cancel_marks", "local_plans", "subscribers"] {
            let column = table == "subscribers" ? "id" : "subscriber_id"
            try db.execute("DELETE FROM \(unsafeRaw: table) WHERE tenant_id = \(tenantId) AND \(unsafeRaw: column) = \(subscriberId)")
        }
        // Event ids its devices sent are kept in the subscriber's own space (Topology.dedupeKey).
        try db.execute("""
            DELETE FROM processed_events WHERE tenant_id = \(tenantId)
              AND starts_with(event_id, \(Topology.dedupeKey(eventId: "", subscriberId: subscriberId, fromDevice: true)))
            """)
        try db.execute("""
            INSERT INTO erased_subscribers (tenant_id, subscriber_hash, erased_at) VALUES (\(tenantId), \(Digest.sha256Hex(subscriberId)), \(at))
            ON CONFLICT (tenant_id, subscriber_hash) DO UPDATE SET erased_at = EXCLUDED.erased_at
            """)
    }

    /// The upsert is ``CancelMark/merging(_:)``, row by row.
    func recordCancelMarks(tenantId: String, _ marks: [CancelMark]) throws {
        let latest = CancelMark.latest(marks)
        guard !latest.isEmpty else { return }
        let properties = try latest.map { String(decoding: try JSONEncoder().encode(JSONValue.object($0.properties)), as: UTF8.self) }
        try db.execute("""
            INSERT INTO cancel_marks AS m (tenant_id, subscriber_id, event, at, properties, pending)
            SELECT \(tenantId), s, e, a, p::jsonb, q FROM unnest(\(latest.map(\.subscriberId))::text[], \(latest.map(\.event))::text[],
                   \(latest.map(\.at))::timestamptz[], \(properties)::text[], \(latest.map(\.pending))::bool[]) AS u(s, e, a, p, q)
            ON CONFLICT (tenant_id, subscriber_id, event) DO UPDATE
            SET at = greatest(m.at, EXCLUDED.at),
                properties = CASE WHEN m.at > EXCLUDED.at THEN m.properties ELSE EXCLUDED.properties END,
                pending = EXCLUDED.pending OR (m.pending AND m.at > EXCLUDED.at)
            WHERE EXCLUDED.pending OR m.at <= EXCLUDED.at
            """)
    }

    func cancelMarks(tenantId: String, subscriberIds: [String], pendingOnly: Bool) throws -> [CancelMark] {
        guard !subscriberIds.isEmpty else { return [] }
        return try db.query("""
            SELECT subscriber_id, event, at, properties, pending FROM cancel_marks
            WHERE tenant_id = \(tenantId) AND subscriber_id = ANY(\(Array(Set(subscriberIds)))::text[]) AND (pending OR NOT \(pendingOnly)::bool)
            """).map {
            CancelMark(subscriberId: try $0.decode("subscriber_id"), event: try $0.decode("event"), at: try $0.decode("at"),
                       properties: try $0.decode("properties", as: JSONB<[String: JSONValue]>.self).value, pending: try $0.decode("pending"))
        }
    }

    /// Transaction-scoped advisory locks keyed by the tenant's and each subscriber's `hashtext`
    /// (the two-key space, apart from the one-key locks of migrations and workflow versions),
    /// taken in key order so that two batches never wait on each other in a circle. Two
    /// subscribers whose hashes meet only wait on each other needlessly.
    func holdSubscribers(tenantId: String, _ subscriberIds: [String]) throws {
        guard !subscriberIds.isEmpty else { return }
        try db.execute("""
            SELECT count(pg_advisory_xact_lock(hashtext(\(tenantId)), k.h))
            FROM (SELECT DISTINCT hashtext(s) AS h FROM unnest(\(subscriberIds)::text[]) AS u(s) ORDER BY h) AS k
            """)
    }

    func markEventsProcessed(tenantId: String, eventIds: [String], at: Date) throws -> Set<String> {
        guard !eventIds.isEmpty else { return [] }
        return Set(try db.query("""
            INSERT INTO processed_events (tenant_id, event_id, processed_at)
            SELECT \(tenantId), e, \(at) FROM unnest(\(eventIds)::text[]) AS u(e) ON CONFLICT DO NOTHING RETURNING event_id
            """).map { try $0.decode("event_id", as: String.self) })
    }

    func recordPlan(tenantId: String, subscriberId: String?, delivery: LocalPlanDelivery, at: Date) throws {
        try db.execute("""
            INSERT INTO local_plans (tenant_id, local_id, run_id, subscriber_id, message_id, moment, payload, created_at)
            VALUES (\(tenantId), \(delivery.localId), \(delivery.runId)::uuid, \(subscriberId), \(delivery.messageId)::uuid, \(delivery.moment),
                    \(delivery.body)::json, \(at))
            ON CONFLICT DO NOTHING
            """)
    }

    func recordPlans(_ plans: [SentPlan], at: Date) throws {
        guard plans.count > 1 else {
            for plan in plans { try recordPlan(tenantId: plan.tenantId, subscriberId: plan.subscriberId, delivery: plan.delivery, at: at) }
            return
        }
        try db.execute("""
            INSERT INTO local_plans (tenant_id, local_id, run_id, subscriber_id, message_id, moment, payload, created_at)
            SELECT t, l, r, NULLIF(s, ''), m, mo, p::json, \(at)
            FROM unnest(\(plans.map(\.tenantId))::text[], \(plans.map(\.delivery.localId))::text[], \(plans.map(\.delivery.runId))::uuid[],
                        \(plans.map { $0.subscriberId ?? "" })::text[], \(plans.map(\.delivery.messageId))::uuid[],
                        \(plans.map(\.delivery.moment))::timestamptz[],
                        string_to_array(\(PostgresJSONTexts(plans.map(\.delivery.body))), chr(30))) AS u(t, l, r, s, m, mo, p)
            ON CONFLICT DO NOTHING
            """)
    }

    func recordOpen(tenantId: String, subscriberId: String, messageId: String, at: Date) throws {
        // Only a message sent for one of this subscriber's runs: a device cannot mark someone
        // else's notification opened.
        try db.execute("""
            INSERT INTO opens (tenant_id, message_id, subscriber_id, run_id, opened_at)
            SELECT \(tenantId), \(messageId), \(subscriberId), d.run_id, \(at)
            FROM deliveries d JOIN runs r ON r.id = d.run_id AND r.tenant_id = d.tenant_id
            WHERE d.tenant_id = \(tenantId) AND d.message_id = \(messageId) AND r.subscriber_id = \(subscriberId)
            LIMIT 1
            ON CONFLICT DO NOTHING
            """)
    }

    func recordAction(tenantId: String, subscriberId: String, messageId: String, actionId: String, at: Date) throws {
        try db.execute("""
            INSERT INTO notification_actions (tenant_id, message_id, action_id, subscriber_id, run_id, acted_at)
            SELECT \(tenantId), \(messageId), \(actionId), \(subscriberId), d.run_id, \(at)
            FROM deliveries d JOIN runs r ON r.id = d.run_id AND r.tenant_id = d.tenant_id
            WHERE d.tenant_id = \(tenantId) AND d.message_id = \(messageId) AND r.subscriber_id = \(subscriberId)
            LIMIT 1
            ON CONFLICT DO NOTHING
            """)
    }

    func enqueue(_ messages: [OutboxMessage], runIds: [UUID?], now: Date) throws -> [Outbox.Row] {
        try PostgresOutbox.insert(messages, runIds: runIds, now: now, on: db)
    }

    func deleteTimers(runId: UUID) throws {
        try db.execute("DELETE FROM outbox WHERE run_id = \(runId)")
    }

    func lockOutboxRows(_ ids: [Int64]) throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        return Set(try db.query("SELECT id FROM outbox WHERE id = ANY(\(ids)) FOR UPDATE SKIP LOCKED").map { try $0.decode("id", as: Int64.self) })
    }

    func deleteOutboxRows(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try db.execute("DELETE FROM outbox WHERE id = ANY(\(ids))")
    }
}
