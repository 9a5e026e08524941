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
        XCTAssertEqual(try letters.replay(.trigger, broker: pipeline.broker), 1)
        XCTAssertEqual(try letters.list(.trigger).count, 0, "the dead-letter queue is empty")
        let runs = { try self.pipeline.pool.withConnection { try $0.query("SELECT count(*) AS n FROM runs WHERE tenant_id = \(tenantId)")[0].decode("n", as: Int.self) } }
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try runs() == 1 }, "handled after the replay")

        // The same event again (the backend retries it, or someone replays a copy): its id holds.
        try pipeline.publisher.publishAndWait([message])
        XCTAssertEqual(try letters.replay(.trigger, broker: pipeline.broker), 0)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try runs(), 1, "handled once")
    }

    /// The console lists and replays a tenant's own dead letters only: another tenant's stay
    /// where they are, unseen.
    func testATenantSeesAndReplaysOnlyItsOwnDeadLetters() throws {
        let tenants = (0..<2).map { _ in "t_" + String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)) }
        for (index, tenantId) in tenants.enumerated() {
            let event = BuzzEvent(id: "e-\(index)", event: "workout.scheduled", subscriberId: "maya",
                                  properties: ["at": .string(RFC3339.format(Date().addingTimeInterval(3600)))], timestamp: Date())
            try pipeline.publisher.publishAndWait([AMQPMessage(exchange: pipeline.topology.eventsExchange,
                                                               routingKey: Topology.routingKey(tenantId: tenantId, event: event.event),
                                                               body: event.jsonData, messageId: "m-\(index)")])
        }
        let letters = DeadLetters(topology: pipeline.topology, amqp: TestServices.amqp)
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try letters.list(.trigger).count == 2 }, "both dead-lettered: unknown tenants")
        XCTAssertEqual(try letters.list(.trigger, tenantId: tenants[0]).map(\.messageId), ["m-0"])
        XCTAssertEqual(try letters.list(.trigger, tenantId: tenants[1]).map(\.messageId), ["m-1"])
        XCTAssertEqual(try letters.list(.trigger, tenantId: "t_nobody").count, 0)

        try pipeline.pool.withConnection { db in
            try db.execute("INSERT INTO tenants (id, name, signing_secret) VALUES (\(tenants[0]), 'fixed', 'secret')")
        }
        try pipeline.directory.putWorkflow(tenantId: tenants[0], definition: try WorkflowDefinition.parse(PipelineHarness.legDay), source: PipelineHarness.legDay)
        XCTAssertEqual(try letters.replay(.trigger, tenantId: tenants[0], broker: pipeline.broker), 1, "the first tenant's letter only")
        let runs = { try self.pipeline.pool.withConnection { try $0.query("SELECT count(*) AS n FROM runs WHERE tenant_id = \(tenants[0])")[0].decode("n", as: Int.self) } }
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try runs() == 1 }, "handled after its replay")
        XCTAssertEqual(try letters.list(.trigger).map(\.messageId), ["m-1"], "the other tenant's letter stays, untouched")
    }

    /// A publisher's headers decide nothing (DESIGN §4c): an event for tenant A that claims,
    /// in `x-buzzkit-routing-key`, to be tenant B's, with an attempt count of `Int64.max`, is
    /// dead-lettered under A's key, and its replay never runs as B's, however B is set up.
    func testForgedHeadersNeitherCrossTenantsNorBreakTheWorker() throws {
        let victim = "t_" + String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16))
        let unknown = "t_" + String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16))
        try pipeline.pool.withConnection { db in
            try db.execute("INSERT INTO tenants (id, name, signing_secret) VALUES (\(victim), 'victim', 'secret')")
        }
        try pipeline.directory.putWorkflow(tenantId: victim, definition: try WorkflowDefinition.parse(PipelineHarness.legDay), source: PipelineHarness.legDay)
        let event = BuzzEvent(id: "e-forged", event: "workout.scheduled", subscriberId: "maya",
                              properties: ["at": .string(RFC3339.format(Date().addingTimeInterval(3600)))], timestamp: Date())
        let forged: [String: AMQPFieldValue] = [
            "x-buzzkit-routing-key": .string(Topology.routingKey(tenantId: victim, event: event.event)),
            "x-buzzkit-prior-failures": .int(Int64.max),
            "x-buzzkit-outage-returns": .int(Int64.max),
            "x-delivery-count": .int(-5),
        ]
        let message = AMQPMessage(exchange: pipeline.topology.eventsExchange, routingKey: Topology.routingKey(tenantId: unknown, event: event.event),
                                  body: event.jsonData, headers: forged, messageId: "m-forged")
        try pipeline.publisher.publishAndWait([message])
        let letters = DeadLetters(topology: pipeline.topology, amqp: TestServices.amqp)
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try letters.list(.trigger).count == 1 }, "dead-lettered: A is unknown")
        XCTAssertEqual(try letters.list(.trigger).first?.routingKey, "\(unknown).workout.scheduled", "under the key it came with")

        XCTAssertEqual(try letters.replay(.trigger, broker: pipeline.broker), 1)
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try letters.list(.trigger).count == 1 }, "dead-lettered again as A's")
        let runs = try pipeline.pool.withConnection { try $0.query("SELECT count(*) AS n FROM runs WHERE tenant_id = \(victim)")[0].decode("n", as: Int.self) }
        XCTAssertEqual(runs, 0, "nothing ran as B")

        // The worker lived through the counts: B's own events still run.
        let own = AMQPMessage(exchange: pipeline.topology.eventsExchange, routingKey: Topology.routingKey(tenantId: victim, event: event.event),
                              body: BuzzEvent(id: "e-own", event: "workout.scheduled", subscriberId: "maya",
                                              properties: event.properties, timestamp: Date()).jsonData, messageId: "m-own")
        try pipeline.publisher.publishAndWait([own])
        XCTAssertTrue(try TestServices.eventually(timeout: 10) {
            try self.pipeline.pool.withConnection { try $0.query("SELECT count(*) AS n FROM runs WHERE tenant_id = \(victim)")[0].decode("n", as: Int.self) } == 1
        })
    }

    /// NUL deep inside an AMQP event's properties is refused at once (dead-lettered with its
    /// reason), not accepted and then failed by PostgreSQL's jsonb over and over; the events
    /// behind it run.
    func testNULDeepInsideAnAMQPEventIsDeadLetteredAtOnce() throws {
        let at = RFC3339.format(Date().addingTimeInterval(3600))
        try assertDeadLetteredAndTheRestFlows(#"{"id":"e-nul","event":"workout.scheduled","subscriberId":"maya","properties":{"at":"\#(at)","deep":{"list":["ok","a\u0000b"]}}}"#,
                                              because: "NUL")
    }

    /// An AMQP event over HTTP's 1 MiB (here 10 MiB) is dead-lettered with its reason, not
    /// parsed; the events behind it run.
    func testA10MiBAMQPEventIsDeadLetteredAndTheRestFlows() throws {
        let at = RFC3339.format(Date().addingTimeInterval(3600))
        let padding = String(repeating: "x", count: 10 << 20)
        try assertDeadLetteredAndTheRestFlows(#"{"id":"e-huge","event":"workout.scheduled","subscriberId":"maya","properties":{"at":"\#(at)","pad":"\#(padding)"}}"#,
                                              because: "1 MiB")
    }

    /// Publishes `body` as the tenant's event: it is dead-lettered with a reason naming
    /// `because`, and an ordinary event published after it becomes a run.
    private func assertDeadLetteredAndTheRestFlows(_ body: String, because: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let tenantId = pipeline.tenantId
        let key = Topology.routingKey(tenantId: tenantId, event: "workout.scheduled")
        try pipeline.publisher.publishAndWait([AMQPMessage(exchange: pipeline.topology.eventsExchange, routingKey: key, body: Data(body.utf8), messageId: "m-hostile")])
        let letters = DeadLetters(topology: pipeline.topology, amqp: TestServices.amqp)
        XCTAssertTrue(try TestServices.eventually(timeout: 20) { try letters.list(.trigger).count == 1 }, "dead-lettered", file: file, line: line)
        let reason = try XCTUnwrap(try letters.list(.trigger).first?.reason, file: file, line: line)
        XCTAssertTrue(reason.contains(because), reason, file: file, line: line)
        let good = BuzzEvent(id: "e-after", event: "workout.scheduled", subscriberId: "maya",
                             properties: ["at": .string(RFC3339.format(Date().addingTimeInterval(3600)))], timestamp: Date())
        try pipeline.publisher.publishAndWait([AMQPMessage(exchange: pipeline.topology.eventsExchange, routingKey: key, body: good.jsonData, messageId: "m-after")])
        XCTAssertTrue(try TestServices.eventually(timeout: 10) {
            try self.pipeline.pool.withConnection { try $0.query("SELECT count(*) AS n FROM runs WHERE tenant_id = \(tenantId)")[0].decode("n", as: Int.self) } == 1
        }, "the event after it ran", file: file, line: line)
    }
}
