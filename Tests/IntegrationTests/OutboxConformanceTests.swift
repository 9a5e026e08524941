import BuzzServer
import Foundation
import XCTest

/// The ``OutboxStore`` port's behaviour, held to the same tests on PostgreSQL
/// (``PostgresOutbox``) and in memory (`InMemoryOutbox`): which rows a relay round takes, that
/// a row is published until a round that published it completes, and never after, and what a
/// round hands its settling step.
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
        _ = try scenario.driver.outbox.relayDue(limit: limit, settle: { _, _, _ in [] }) { messages, lateness in
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

    /// The rows of a round that name their local window go to the round's settling step, in
    /// the round's transaction: what it settles is not published, the rest is (a timer that
    /// names no window too), and a round that fails after settling keeps its rows and records
    /// none of the step's decisions.
    func testTheWindowsOfARoundGoToItsSettlingStepAndWhatItSettlesIsNotPublished() throws {
        try eachDriver { scenario in
            let runs = [UUID(), UUID()]
            let windows = runs.map { OutboxMessage.Window(tenantId: scenario.tenantId, subscriberId: "u1", runId: $0, localId: "\($0.lowercasedText)/nudge") }
            let messages = windows.enumerated().map {
                OutboxMessage(routingKey: "fallback-check", messageId: "window-\($0.offset)", body: Data("{}".utf8),
                              availableAt: Date().addingTimeInterval(-1), window: $0.element)
            } + [OutboxMessage(routingKey: "fallback-check", messageId: "plain", body: Data("{}".utf8), availableAt: Date().addingTimeInterval(-1))]
            _ = try scenario.store.transaction { try $0.enqueue(messages, runIds: runs + [nil], now: Date()) }
            func settleFirst(_ due: [DueWindow], _ tx: any StoreTransaction, _ now: Date) throws -> Set<Int64> {
                let first = due.filter { $0.window.runId == runs[0] }
                try tx.recordWindowDecisions(first.map { WindowDecision(runId: $0.window.runId, localId: $0.window.localId, decidedAt: now, acknowledgedAt: now) }, learntByRuns: false)
                return Set(first.map(\.rowId))
            }
            struct BrokerDown: Error {}
            XCTAssertThrowsError(try scenario.driver.outbox.relayDue(limit: 10, settle: settleFirst) { _, _ in throw BrokerDown() })
            XCTAssertEqual(try scenario.store.transaction { try $0.windowDecisions(runIds: runs) }.count, 0, "rolled back with the round")
            var handed: [OutboxMessage.Window] = []
            var published: [String] = []
            let round = try scenario.driver.outbox.relayDue(limit: 10, settle: { due, tx, now in
                handed += due.map(\.window)
                return try settleFirst(due, tx, now)
            }, publish: { messages, _ in published += messages.map(\.messageId) })
            XCTAssertEqual(handed.sorted { $0.localId < $1.localId }, windows.sorted { $0.localId < $1.localId }, "each window with its run and subscriber")
            XCTAssertEqual(Set(published), ["window-1", "plain"])
            XCTAssertEqual(round, RelayRound(published: 2, settled: 1))
            XCTAssertEqual(try scenario.store.transaction { try $0.windowDecisions(runIds: runs) }[runs[0]]?.map(\.localId), [windows[0].localId])
            XCTAssertEqual(try relay(scenario), [], "every claimed row deleted")
        }
    }

    /// A round hands each window with what the devices have said of its plan, as the
    /// acknowledgment lookup reads it: the settling step decides from that alone.
    func testARoundHandsEachWindowWithItsPlansAcknowledgments() throws {
        try eachDriver { scenario in
            let (held, device, heldId) = try scenario.acknowledgedRun(installId: "install-1")
            let quiet = UUID()
            let windows = [OutboxMessage.Window(tenantId: scenario.tenantId, subscriberId: "u1", runId: held.id, localId: heldId),
                           OutboxMessage.Window(tenantId: scenario.tenantId, subscriberId: "u1", runId: quiet, localId: "\(quiet.lowercasedText)/nudge")]
            let messages = windows.enumerated().map {
                OutboxMessage(routingKey: "fallback-check", messageId: "window-\($0.offset)", body: Data("{}".utf8),
                              availableAt: Date().addingTimeInterval(-1), window: $0.element)
            }
            _ = try scenario.store.transaction { try $0.enqueue(messages, runIds: [held.id, quiet], now: Date()) }
            var handed: [UUID: [PlanHolding]] = [:]
            _ = try scenario.driver.outbox.relayDue(limit: 10, settle: { due, _, _ in
                for window in due { handed[window.window.runId] = window.holdings }
                return []
            }, publish: { _, _ in })
            XCTAssertEqual(handed[held.id]?.map(\.device), [device.token], "the acknowledging device")
            XCTAssertEqual(handed[held.id]?.map(\.counts), [true], "an active device of the subscriber that holds the plan")
            XCTAssertEqual(handed[quiet], [], "no device said anything")
            XCTAssertEqual(handed[held.id], try scenario.store.transaction {
                try $0.acknowledgments(tenantId: scenario.tenantId, windows: [WindowKey(subscriberId: "u1", runId: held.id, localId: heldId)])[held.id]
            }, "what the acknowledgment lookup reads")
        }
    }
}
