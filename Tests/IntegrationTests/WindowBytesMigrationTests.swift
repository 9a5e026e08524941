import BuzzServer
import Foundation
import PostgresClient
import XCTest

/// Migration 0023 (a run's state as text, a plan's body as json, `fire_at` no longer written)
/// on real PostgreSQL: what servers from before it wrote still reads, and while a rolling
/// upgrade replaces them they keep writing and reading in their old form.
final class WindowBytesMigrationTests: SchemaTestCase {
    let oldRun = UUID(), laterRun = UUID()

    override func setUpWithError() throws {
        try open("bytesmig", upTo: 22)
        try oldServerStarts(oldRun, moment: Date().addingTimeInterval(3600))
        XCTAssertEqual(try TestServices.migrate(schema, upTo: 23), [23])
    }

    /// A plan's push body as the trigger stage records it.
    func body(_ runId: UUID) -> String {
        """
        {"aps":{"content-available":1},"bk.local":{"id":"\(runId.lowercasedText)/nudge","messageId":"\(UUID().lowercasedText)",\
        "fireAt":{"year":2030,"month":1,"day":2,"hour":7,"minute":0,"second":0},"title":"Leg day","body":"6:00 with Maya.",\
        "data":{},"cancelOn":["workout.completed"],"expiresAt":"2030-01-02T08:00:00.000Z"}}
        """
    }

    /// The statements a server from before 0023 runs when a run starts and its plan goes out:
    /// the state cast to json, the plan with `fire_at` and its body cast to jsonb.
    func oldServerStarts(_ runId: UUID, moment: Date) throws {
        try pool.withConnection { db in
            try db.execute("""
                INSERT INTO runs (id, tenant_id, workflow_key, workflow_version, subscriber_id, dry_run, bulk, status, cancel_events, state)
                VALUES (\(runId), 't', 'leg-day', 1, 'maya', false, false, 'waiting', \(["workout.completed"])::text[], \("{\"version\":1}")::json)
                """)
            try db.execute("""
                INSERT INTO local_plans (tenant_id, local_id, run_id, subscriber_id, message_id, moment, fire_at, payload, created_at)
                VALUES ('t', \(runId.lowercasedText + "/nudge"), \(runId)::uuid, 'maya', \(UUID())::uuid, \(moment),
                        \("{\"hour\":7}")::jsonb, \(body(runId))::jsonb, now())
                ON CONFLICT DO NOTHING
                """)
        }
    }

    /// A device's sync as a server from before 0023 reads it.
    func oldServerSyncs() throws -> [String] {
        try pool.withConnection { db in
            try db.query("""
                SELECT (p.payload -> 'bk.local')::text AS plan FROM local_plans p JOIN runs r ON r.id = p.run_id
                WHERE p.tenant_id = 't' AND p.subscriber_id = 'maya' ORDER BY p.moment
                """).map { try $0.decode("plan", as: String.self) }
        }
    }

    func testWhatOldServersWroteReadsTheSameAfterTheMigration() throws {
        let plans = try PostgresDirectory(pool: pool).pendingPlans(tenantId: "t", subscriberId: "maya", now: Date())
        XCTAssertEqual(plans.map(\.id), ["\(oldRun.lowercasedText)/nudge"], "the plan a device syncs")
        XCTAssertEqual(plans.first?.title, "Leg day")
        let state = try pool.withConnection { db in
            try db.query("SELECT state FROM runs WHERE id = \(oldRun)")[0].decode("state", as: String.self)
        }
        XCTAssertEqual(state, "{\"version\":1}", "the state reads back as it was written")
    }

    func testServersFromBeforeTheMigrationKeepWorkingDuringARollingUpgrade() throws {
        // An old worker starts a run and records its plan after the migration ran.
        try oldServerStarts(laterRun, moment: Date().addingTimeInterval(7200))
        // An old API answers a sync with both plans; the new one lists them too.
        let synced = try oldServerSyncs()
        XCTAssertEqual(synced.count, 2)
        XCTAssertTrue(synced.allSatisfy { $0.contains("\"title\"") && $0.contains("Leg day") }, "\(synced)")
        let plans = try PostgresDirectory(pool: pool).pendingPlans(tenantId: "t", subscriberId: "maya", now: Date())
        XCTAssertEqual(plans.map(\.id), [oldRun, laterRun].map { "\($0.lowercasedText)/nudge" })
        // A fallback built from the plan as sent reads its body whole, old row or new.
        let payloads = try PostgresStore(pool: pool).transaction { tx in
            try tx.planPayloads(tenantId: "t", localIds: [oldRun, laterRun].map { "\($0.lowercasedText)/nudge" })
        }
        XCTAssertEqual(payloads.count, 2)
        for payload in payloads.values { XCTAssertNoThrow(try JSONSerialization.jsonObject(with: payload)) }
    }
}
