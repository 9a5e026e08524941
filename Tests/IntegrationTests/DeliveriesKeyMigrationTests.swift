import BuzzServer
import Foundation
import PostgresClient
import XCTest

/// Migration 0027 (a delivery known by its idempotency key and device, its serial id no longer
/// kept) on real PostgreSQL: a push is still recorded once per device, by servers from before it
/// during a rolling upgrade as by new ones, and its rows read the same.
final class DeliveriesKeyMigrationTests: SchemaTestCase {
    let runId = UUID(), device = UUID()

    override func setUpWithError() throws { try open("delivkey", upTo: 26) }

    /// The claim a server from before 0027 makes for a push (it names no id); true when this
    /// call recorded it, false when the pair was recorded before.
    func oldServerClaims(_ key: String) throws -> Bool {
        try pool.withConnection { db in
            try db.query("""
                INSERT INTO deliveries (tenant_id, run_id, idempotency_key, device_id, kind, status, message_id, created_at)
                VALUES ('t_gym', \(runId), \(key), \(device), 'fallback', 'pending', NULL, now())
                ON CONFLICT (idempotency_key, device_id) DO NOTHING
                RETURNING idempotency_key
                """).count == 1
        }
    }

    func testAPushIsRecordedOncePerDeviceBeforeDuringAndAfterTheUpgrade() throws {
        XCTAssertTrue(try oldServerClaims("before/fallback"))
        XCTAssertEqual(try TestServices.migrate(schema, upTo: 27), [27])
        XCTAssertFalse(try oldServerClaims("before/fallback"), "recorded before the upgrade: not again")
        XCTAssertTrue(try oldServerClaims("during/fallback"), "a server from before keeps recording")
        XCTAssertFalse(try oldServerClaims("during/fallback"), "once")

        let store = PostgresStore(pool: pool)
        let request = DeliveryRequest(tenantId: "t_gym", runId: runId, idempotencyKey: "after/fallback", deviceId: device, kind: "fallback",
                                      messageId: nil)
        XCTAssertEqual(try store.transaction { try $0.claimDeliveries([request], at: Date()) }, [.send])
        XCTAssertEqual(try store.transaction { try $0.claimDeliveries([request], at: Date()) }, [.alreadyDone], "claimed once")
        try store.transaction { try $0.finishDeliveries([DeliveryResult(request, DeliveryOutcome(status: "sent", attempts: 1))], at: Date()) }

        let rows = try pool.withConnection { db in
            try db.query("SELECT idempotency_key, status FROM deliveries WHERE run_id = \(runId) ORDER BY idempotency_key")
                .map { "\(try $0.decode("idempotency_key", as: String.self)) \(try $0.decode("status", as: String.self))" }
        }
        XCTAssertEqual(rows, ["after/fallback sent", "before/fallback pending", "during/fallback pending"], "one row per pair")
    }
}
