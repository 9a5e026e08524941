import BuzzServer
import Foundation
import XCTest

/// The ``OutboxStore`` port's behaviour, held to the same tests on PostgreSQL
/// (``PostgresOutbox``) and in memory (`InMemoryOutbox`): which rows a relay round takes, and
/// that a row is published until a round that published it completes, and never after.
final class OutboxConformanceTests: ConformanceTestCase {
    /// Timer rows due `offsets` seconds from now (negative: already due), committed in one
    /// transaction; returns their rows.
    func timers(_ offsets: [TimeInterval], on scenario: Scenario, prefix: String = "timer") throws -> [Outbox.Row] {
        let messages = offsets.enumerated().map { index, offset in
            OutboxMessage(routingKey: "fallback-check", messageId: "\(prefix)-\(index)", body: Data("{}".utf8), availableAt: Date().addingTimeInterval(offset))
        }
        return try scenario.store.transaction { try $0.enqueue(messages, runIds: messages.map { _ in nil }, now: Date()) }
    }

    /// One relay round of at most `limit` rows; returns the message ids it published.
    func relay(_ scenario: Scenario, limit: Int = 100, failing: Bool = false) throws -> [String] {
        var published: [String] = []
        _ = try scenario.driver.outbox.relayDue(limit: limit) { messages, lateness in
            XCTAssertEqual(messages.count, lateness.count)
            XCTAssertTrue(lateness.allSatisfy { $0 >= 0 && $0 < 60 }, "late by seconds at most: \(lateness)")
            if failing { throw ServerError(.unavailable, "the broker is down") }
            published += messages.map(\.messageId)
        }
        return published
    }

    func testADueRowIsPublishedOnceAndOneDueLaterWaits() throws {
        try eachDriver { scenario in
            _ = try timers([-1, 3600], on: scenario)
            XCTAssertEqual(try relay(scenario), ["timer-0"])
            XCTAssertEqual(try relay(scenario), [], "published once")
            let next = try XCTUnwrap(try scenario.driver.outbox.secondsUntilNextDue())
            XCTAssertEqual(next, 3600, accuracy: 5, "the other is due in an hour")
        }
    }

    func testARoundTakesAtMostItsLimitEarliestFirst() throws {
        try eachDriver { scenario in
            _ = try timers([-1, -3, -2], on: scenario)
            XCTAssertEqual(Set(try relay(scenario, limit: 2)), ["timer-1", "timer-2"], "the two due earliest")
            XCTAssertEqual(try relay(scenario, limit: 2), ["timer-0"])
            XCTAssertNil(try scenario.driver.outbox.secondsUntilNextDue(), "empty")
        }
    }

    func testARoundWhosePublishFailsKeepsItsRows() throws {
        try eachDriver { scenario in
            _ = try timers([-1], on: scenario)
            XCTAssertThrowsError(try relay(scenario, failing: true))
            XCTAssertEqual(try relay(scenario), ["timer-0"], "still there after the failed round")
        }
    }

    func testARowTheFastPathPublishedIsNotRelayedAgain() throws {
        try eachDriver { scenario in
            let rows = try timers([-1, -1], on: scenario)
            try scenario.driver.outbox.deleteRelayed([rows[0].id])
            XCTAssertEqual(try relay(scenario), ["timer-1"])
            try scenario.driver.outbox.vacuum()
        }
    }
}
