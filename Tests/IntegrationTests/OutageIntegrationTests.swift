import AMQPClient
import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import XCTest

/// A PostgreSQL outage much longer than the workers' hold: the messages already in the queues
/// come through it without using up their delivery attempts.
final class OutageIntegrationTests: XCTestCase {
    /// With a delivery limit of 2 and a hold of 0.4 s, an outage of about 6 s outlasts many
    /// holds. Requeueing held messages (each requeue counted by the quorum queue) would have
    /// dead-lettered every event by the second hold; instead each comes back as a copy, and
    /// once the database returns every subscriber gets exactly one run and nothing is
    /// dead-lettered.
    func testAnOutageOfManyHoldPeriodsDeadLettersNothing() throws {
        let pipeline = try PipelineHarness(workers: [.trigger], startScheduler: false, deliveryLimit: 2, outageHold: 0.4, acquireTimeout: 0.3)
        var restarted = false
        defer {
            if !restarted { try? TestServices.services("start-postgres") }
            pipeline.shutdown()
        }
        try pipeline.putLegDay()
        let subscribers = (0..<6).map { "athlete-\($0)" }
        for subscriber in subscribers { try pipeline.subscriber(subscriber) }

        try TestServices.services("stop-postgres")
        let moment = Date().addingTimeInterval(3600)
        for subscriber in subscribers { try pipeline.scheduleWorkout(subscriber, at: moment) }
        // Long enough for every event to be held and returned several times.
        XCTAssertTrue(TestServices.eventually(timeout: 30) {
            pipeline.metrics.counter("buzzkit_messages_total", ["queue": "trigger", "outcome": "outage_returned"]) >= Double(subscribers.count * 3)
        }, "the workers did not hold and return the events while PostgreSQL was down")
        try TestServices.services("start-postgres")
        restarted = true

        XCTAssertTrue(TestServices.eventually(timeout: 30) { (try? pipeline.runs().count) == subscribers.count },
                      "not every event became a run after the outage")
        let runs = try pipeline.runs()
        XCTAssertEqual(Set(runs.compactMap(\.subscriberId)), Set(subscribers), "each subscriber has exactly one run")
        XCTAssertEqual(runs.count, subscribers.count)
        let connection = try TestServices.amqp.connect().connection
        defer { connection.close() }
        XCTAssertEqual(try connection.queueDepth(pipeline.topology.deadLetterName(.trigger)).messages, 0, "an event was dead-lettered")
        XCTAssertEqual(pipeline.metrics.counter("buzzkit_messages_total", ["queue": "trigger", "outcome": "dead_lettered"]), 0)
    }
}
