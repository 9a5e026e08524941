import AMQPClient
import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import XCTest

/// SIGTERM in the middle of a load: the worker cancels its subscription, finishes and
/// acknowledges everything it was handed, and exits 0; nothing it processed comes back.
///
/// Measured here: RabbitMQ 3.10's quorum queues flag messages as redelivered after a consumer
/// cancel even when the consumer never received them (checked out against its prefetch credit,
/// then returned), anywhere from 0 to most of the window. The worker's own counters show it
/// received, processed and acknowledged every delivery it got, so the test checks what a user
/// sees: a clean exit, every event processed, none processed twice.
final class GracefulShutdownTests: XCTestCase {
    func testSIGTERMMidLoadRedeliversNothing() throws {
        let harness = try PipelineHarness(workers: [], startScheduler: false)
        defer { harness.shutdown() }
        let total = 6000
        var environment = TestServices.processEnvironment(schema: harness.schema)
        environment["BUZZKIT_PREFETCH"] = "300"
        environment["BUZZKIT_SHUTDOWN_GRACE_SECONDS"] = "15"
        let worker = Process()
        worker.executableURL = TestServices.repositoryRoot.appendingPathComponent(".build/debug/buzzkit")
        worker.arguments = ["worker", "--queues", "trigger"]
        worker.environment = environment
        worker.standardError = FileHandle(forWritingAtPath: "/dev/null")

        let encoder = JSONEncoder()
        let messages = try (0..<total).map { n in
            AMQPMessage(exchange: harness.topology.eventsExchange, routingKey: Topology.routingKey(tenantId: harness.tenantId, event: "page.viewed"),
                        body: try encoder.encode(BuzzEvent(id: "e\(n)", event: "page.viewed", subscriberId: "u\(n % 50)", timestamp: Date())),
                        messageId: "m\(n)")
        }
        // All of the load is queued before the worker starts: started first, it could keep pace
        // with the publisher and be done before the SIGTERM (RabbitMQ with one scheduler
        // publishes more slowly than the worker consumes).
        try harness.publisher.publishAndWait(messages)
        try worker.run()
        func processed() throws -> Int {
            try harness.pool.withConnection { try $0.query("SELECT count(*) AS n FROM processed_events")[0].decode("n", as: Int.self) }
        }
        XCTAssertTrue(try TestServices.eventually(timeout: 30) { try processed() > 200 }, "the worker is busy")
        kill(worker.processIdentifier, SIGTERM)
        worker.waitUntilExit()
        XCTAssertEqual(worker.terminationStatus, 0, "the worker drained and exited cleanly")
        let afterShutdown = try processed()
        XCTAssertLessThan(afterShutdown, total, "SIGTERM landed mid-load")

        // A fresh worker takes the rest; none of what it gets was handed out before.
        harness.startWorkers([.trigger])
        XCTAssertTrue(try TestServices.eventually(timeout: 60) { try processed() == total })
        XCTAssertEqual(harness.metrics.counter("buzzkit_messages_total", ["queue": "trigger", "outcome": "failed"]), 0, "no failures")
        XCTAssertEqual(harness.metrics.counter("buzzkit_events_duplicate_total"), 0, "no event was processed twice")
    }
}
