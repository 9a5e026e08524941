import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import XCTest

/// How PostgreSQL keeps a packed outbox row (migration 0026): the plans a trigger batch writes
/// before its commit are compressed on their row instead of being cut into TOAST chunks, and a
/// relay publishes the very bytes that were written.
final class OutboxStorageIntegrationTests: SchemaTestCase {
    override func setUpWithError() throws { try open("outboxstore") }

    /// A `plan-dispatch` message as the trigger stage packs it: one run's plan, about 2 KB.
    func planMessage(_ index: Int) throws -> Data {
        let runId = UUID()
        let plan = LocalPlan(id: "\(runId.lowercasedText)/nudge", messageId: UUID().lowercasedText,
                             fireAt: FireAt(year: 2030, month: 1, day: 2, hour: 7, minute: 0, second: index % 60),
                             title: "Leg day", body: "6:00 with Maya.", data: [:], cancelOn: ["workout.completed"],
                             expiresAt: Date(timeIntervalSince1970: 1_893_578_400))
        let delivery = LocalPlanDelivery(runId: runId.lowercasedText, stepName: "nudge", moment: Date(timeIntervalSince1970: 1_893_567_600),
                                         encoded: try EncodedPayload(SilentPlanPayload(local: plan), path: "plan"))
        return try PipelineMessage.sendPlan(tenantId: "t_gym", runId: runId, subscriberId: "s\(index)", delivery: delivery).encoded()
    }

    /// Writes one packed row of `plans` plans; returns its body, the body's bytes as stored,
    /// and the bytes of the outbox's TOAST table.
    func enqueue(plans: Int) throws -> (body: Data, stored: Int, toast: Int) {
        let body = PipelineMessage.pack(try (0..<plans).map(planMessage))
        let message = OutboxMessage(routingKey: "plan-dispatch", messageId: "plans-\(plans)", body: body, availableAt: Date().addingTimeInterval(-1),
                                    items: plans)
        _ = try PostgresStore(pool: pool).transaction { try $0.enqueue([message], runIds: [nil], now: Date()) }
        return try pool.withConnection { db in
            let row = try db.query("""
                SELECT pg_column_size(body) AS stored,
                       pg_relation_size((SELECT reltoastrelid FROM pg_class WHERE oid = 'outbox'::regclass)) AS toast
                FROM outbox WHERE message_id = \(message.messageId)
                """)[0]
            return (body, try row.decode("stored", as: Int.self), try row.decode("toast", as: Int.self))
        }
    }

    func testAPackedBatchOfPlansIsKeptCompressedAndRelayedByteForByte() throws {
        // A batch of twenty: compressed about six times, it stays on its row.
        let twenty = try enqueue(plans: 20)
        XCTAssertGreaterThan(twenty.body.count, 20_000)
        XCTAssertLessThan(twenty.stored, twenty.body.count / 4, "compressed")
        XCTAssertEqual(twenty.toast, 0, "on its row: nothing in the TOAST table")
        // Fifty: still more than a page once compressed, so out of line, but compressed there
        // too: two TOAST pages, where its raw 2 KB chunks took eight.
        let fifty = try enqueue(plans: 50)
        XCTAssertLessThan(fifty.stored, fifty.body.count / 4, "compressed")
        XCTAssertLessThanOrEqual(fifty.toast, 2 * 8192)

        var published: [OutboxMessage] = []
        _ = try PostgresOutbox(pool: pool).relayDue(limit: 10, settle: { _, _, _ in [] }) { messages, _ in published += messages }
        XCTAssertEqual(Set(published.map(\.body)), [twenty.body, fifty.body], "the bytes written")
        XCTAssertEqual(Set(published.map(\.items)), [20, 50])
    }
}
