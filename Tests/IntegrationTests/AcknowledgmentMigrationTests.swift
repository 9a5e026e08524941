import BuzzServer
import Foundation
import PostgresClient
import XCTest

/// Migration 0005 (acknowledgments per device) on real PostgreSQL: acknowledgments recorded
/// before it keep counting, and servers from before it keep working while a rolling upgrade
/// replaces them (they write and read the table in its old form).
final class AcknowledgmentMigrationTests: XCTestCase {
    var schema = ""
    var pool: PostgresPool!
    let runId = UUID()
    var localId: String { "\(runId.lowercasedText)/nudge" }
    let recorded = Date(timeIntervalSince1970: 1_796_029_205)

    override func setUpWithError() throws {
        schema = TestServices.uniqueName("ackmig")
        pool = try TestServices.pool(schema: schema)
        try TestServices.migrate(schema, upTo: 4)
        // An acknowledgment as servers wrote it before 0005.
        try oldServerAcknowledges(subscriber: "maya", at: recorded)
        XCTAssertEqual(try TestServices.migrate(schema, upTo: 5), [5])
    }

    override func tearDown() {
        pool?.close()
        TestServices.dropSchema(schema)
    }

    /// The statement of `recordAcknowledgments` before 0005.
    func oldServerAcknowledges(subscriber: String, at: Date) throws {
        try pool.withConnection { db in
            try db.execute("""
                INSERT INTO acknowledgments (tenant_id, subscriber_id, local_id, message_id, acknowledged_at)
                SELECT 't', s, l, NULLIF(m, ''), \(at) FROM unnest(\([subscriber])::text[], \([localId])::text[], \(["m"])::text[]) AS u(s, l, m)
                ON CONFLICT DO NOTHING
                """)
        }
    }

    func holdings(_ subscriber: String) throws -> [PlanHolding] {
        try PostgresStore(pool: pool).transaction { tx in
            try tx.acknowledgments(tenantId: "t", windows: [WindowKey(subscriberId: subscriber, runId: runId, localId: localId)])[runId] ?? []
        }
    }

    func testAcknowledgmentsRecordedBeforeTheMigrationStillCount() throws {
        let rows = try holdings("maya")
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows.first?.device, "", "no device: counts per subscriber, as before")
        XCTAssertEqual(rows.first?.scheduledAt, recorded, "held from when it was recorded")
        XCTAssertEqual(rows.first?.counts, true)
    }

    func testServersFromBeforeTheMigrationKeepWorkingDuringARollingUpgrade() throws {
        // An old worker records an acknowledgment after the migration ran: held from then.
        try oldServerAcknowledges(subscriber: "sam", at: Date())
        XCTAssertEqual(try holdings("sam").first?.counts, true)
        // A new worker (on today's schema, where an acknowledgment needs its plan) records a
        // release that arrived before its acknowledgment; an old fallback check still reads
        // every row (acknowledged_at is never NULL).
        try TestServices.migrate(schema)
        try pool.withConnection { db in
            try db.execute("""
                INSERT INTO local_plans (tenant_id, local_id, run_id, subscriber_id, message_id, moment, payload)
                VALUES ('t', \(localId), \(runId), 'kim', \(UUID()), now(), '{}'::json)
                """)
        }
        let counts = try PostgresStore(pool: pool).transaction { tx in
            try tx.recordAcknowledgments(tenantId: "t", [DeviceAcknowledgment(subscriberId: "kim", localId: localId, device: "ab",
                                                                               messageId: "m", kind: .released, at: Date())], at: Date())
        }
        XCTAssertEqual(counts.released, 1)
        let oldRead = try pool.withConnection { db in
            try db.query("""
                SELECT a.local_id, a.message_id, a.acknowledged_at FROM unnest(\(["kim"])::text[], \([runId])::uuid[]) AS u(s, r)
                JOIN acknowledgments a ON a.tenant_id = 't' AND a.subscriber_id = u.s AND starts_with(a.local_id, u.r::text || '/')
                """).map { try $0.decode("acknowledged_at", as: Date.self) }
        }
        XCTAssertEqual(oldRead.count, 1)
        XCTAssertEqual(try holdings("kim").first?.counts, false, "a release alone holds nothing")
    }
}
