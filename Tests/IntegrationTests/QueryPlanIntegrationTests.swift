import Foundation
import PostgresClient
import XCTest
@testable import BuzzStore

/// The plans PostgreSQL makes for two statements that read runs by id while many runs are open,
/// pinned on real PostgreSQL with the statistics a 07:00 campaign leaves behind: the last
/// ANALYZE saw no open run, and thousands are open now. With the run's status in a join, both
/// statements once walked every open run (`runs_open_by_subscriber`, which such statistics call
/// empty): the window completer spent 324 ms a batch at 2,000 windows a second, and every app
/// launch's sync 13 ms for one plan among 5,000 open runs (`make bench`, docs/architecture.md).
/// Each test also shows the premise: under the same statistics, the join form does walk them.
final class QueryPlanIntegrationTests: SchemaTestCase {
    let tenant = "t_plans", openRuns = 3_000
    var runIds: [UUID] = []

    override func setUpWithError() throws {
        try open("plans")
        runIds = (0..<openRuns).map { _ in UUID() }
        try pool.withConnection { db in
            // No autovacuum here: the statistics stay as the ANALYZE below leaves them.
            try db.execute("""
                ALTER TABLE runs SET (autovacuum_enabled = false); ALTER TABLE local_plans SET (autovacuum_enabled = false);
                ALTER TABLE window_decisions SET (autovacuum_enabled = false)
                """)
            try db.execute("""
                INSERT INTO runs (id, tenant_id, workflow_key, workflow_version, subscriber_id, status, state)
                SELECT r, \(tenant), 'workout', 1, 's' || n, 'completed', '{}'
                FROM unnest(\(runIds)::uuid[]) WITH ORDINALITY AS u(r, n)
                """)
            try db.execute("""
                INSERT INTO local_plans (tenant_id, local_id, run_id, subscriber_id, message_id, moment, payload)
                SELECT \(tenant), r::text || '/nudge', r, 's' || n, gen_random_uuid(), now() + interval '1 hour', '{}'
                FROM unnest(\(runIds)::uuid[]) WITH ORDINALITY AS u(r, n)
                """)
            try db.execute("""
                INSERT INTO window_decisions (run_id, local_id, decided_at, acknowledged_at, filed)
                SELECT r, r::text || '/nudge', now() - interval '1 minute', now(), true FROM unnest(\(runIds)::uuid[]) AS u(r)
                """)
            try db.execute("ANALYZE runs, local_plans, window_decisions")
            // The campaign: every run open now, a few windows decided and not yet filed.
            try db.execute("UPDATE runs SET status = 'waiting'")
            try db.execute("UPDATE window_decisions SET filed = false WHERE run_id = ANY(\(Array(runIds.prefix(20)))::uuid[])")
        }
    }

    /// The plan PostgreSQL makes for `query` now, as EXPLAIN's JSON text.
    func plan(_ query: PostgresQuery) throws -> String {
        try pool.withConnection { db in
            try db.query(("EXPLAIN (FORMAT JSON) \(query)" as PostgresQuery).plannedEachTime())
                .map { try $0.decode("QUERY PLAN", as: String.self) }.joined()
        }
    }

    func testTheCompleterFindsItsRunsByIdWhateverTheStatisticsSay() throws {
        let now = Date()
        let completer = try plan(PostgresStoreTransaction.completerQuery(decidedBefore: now, limit: 500))
        XCTAssertTrue(completer.contains("runs_pkey"), completer)
        XCTAssertFalse(completer.contains("runs_open_by_subscriber"), "the completer walked every open run:\n\(completer)")

        // The premise: the runs' part of the statement's former shape, the status in the
        // condition, walks them.
        let former = try plan(("""
            WITH due AS MATERIALIZED (
                SELECT run_id FROM window_decisions WHERE filed IS NOT TRUE AND decided_at < \(now)
                ORDER BY decided_at LIMIT 500 FOR UPDATE SKIP LOCKED)
            UPDATE runs SET status = 'completed', updated_at = now()
            WHERE id IN (SELECT run_id FROM due) AND status IN ('running', 'waiting')
            """ as PostgresQuery).plannedEachTime())
        XCTAssertTrue(former.contains("runs_open_by_subscriber"), "the statistics here no longer mislead the planner:\n\(former)")
    }

    func testADeviceSyncReadsEachPlansRunByIdWhateverTheStatisticsSay() throws {
        let now = Date()
        let sync = try plan(PostgresDirectory.pendingPlansQuery(tenantId: tenant, subscriberId: "s1", now: now))
        XCTAssertTrue(sync.contains("runs_pkey"), sync)
        XCTAssertFalse(sync.contains("runs_open_by_subscriber"), "one subscriber's sync walked every open run:\n\(sync)")

        let former = try plan(("""
            SELECT (p.payload -> 'bk.local')::text AS plan FROM local_plans p JOIN runs r ON r.id = p.run_id AND r.tenant_id = p.tenant_id
            WHERE p.tenant_id = \(tenant) AND p.subscriber_id = 's1' AND p.moment > \(now)
              AND r.status IN ('running', 'waiting') AND NOT r.dry_run
            ORDER BY p.moment, p.local_id
            """ as PostgresQuery).plannedEachTime())
        XCTAssertTrue(former.contains("runs_open_by_subscriber"), "the statistics here no longer mislead the planner:\n\(former)")
    }
}
