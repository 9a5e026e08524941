import AMQPClient
import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import XCTest

/// `buzzkit dlq list|replay`: a message dead-lettered by a bug is replayed after the fix and
/// handled once, however often it is replayed or republished.
final class DeadLetterReplayIntegrationTests: PipelineTestCase {
    func testAnEventDeadLetteredByABugIsHandledOnceAfterTheFixAndItsReplay() throws {
        // The "bug": events for a tenant this deployment does not know yet (a backend
        // configured ahead of its tenant's migration), each refused as permanent.
        let tenantId = "t_" + String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16))
        let event = BuzzEvent(id: "e-1", event: "workout.scheduled", subscriberId: "maya",
                              properties: ["at": .string(RFC3339.format(Date().addingTimeInterval(3600)))], timestamp: Date())
        let message = AMQPMessage(exchange: pipeline.topology.eventsExchange, routingKey: Topology.routingKey(tenantId: tenantId, event: event.event),
                                  body: event.jsonData, messageId: "m-1")
        try pipeline.publisher.publishAndWait([message])
        let letters = DeadLetters(topology: pipeline.topology, amqp: TestServices.amqp)
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try letters.list(.trigger).count == 1 }, "dead-lettered")
        let listed = try XCTUnwrap(try letters.list(.trigger).first)
        XCTAssertEqual(listed.messageId, "m-1")
        XCTAssertEqual(listed.routingKey, "\(tenantId).workout.scheduled", "listed under the routing key it was sent with")
        XCTAssertTrue(listed.reason.contains("unknown tenant"), listed.reason)
        XCTAssertEqual(try letters.list(.trigger).count, 1, "listing leaves it in place")

        // The fix: the tenant exists, with the workflow. Then the replay.
        try pipeline.pool.withConnection { db in
            try db.execute("INSERT INTO tenants (id, name, signing_secret) VALUES (\(tenantId), 'late', 'secret')")
        }
        try pipeline.directory.putWorkflow(tenantId: tenantId, definition: try WorkflowDefinition.parse(PipelineHarness.legDay), source: PipelineHarness.legDay)
        XCTAssertEqual(try letters.replay(.trigger, broker: pipeline.publisher), 1)
        XCTAssertEqual(try letters.list(.trigger).count, 0, "the dead-letter queue is empty")
        let runs = { try self.pipeline.pool.withConnection { try $0.query("SELECT count(*) AS n FROM runs WHERE tenant_id = \(tenantId)")[0].decode("n", as: Int.self) } }
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try runs() == 1 }, "handled after the replay")

        // The same event again (the backend retries it, or someone replays a copy): its id holds.
        try pipeline.publisher.publishAndWait([message])
        XCTAssertEqual(try letters.replay(.trigger, broker: pipeline.publisher), 0)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try runs(), 1, "handled once")
    }
}
