import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// A plan whose acknowledgment cannot reach the server before its deadline (fire time minus
/// `acknowledgmentDeadline`) is withdrawn, so the server's fallback shows it once instead of
/// the phone and the fallback showing it twice.
final class AcknowledgmentDeadlineTests: XCTestCase {
    func testOfflinePlanGetsALastSendAndIsThenWithdrawn() async throws {
        let phone = try await TestPhone()  // deadline 5 s
        phone.network.setOnline(false)
        await phone.receivePlan("run-1/a", in: 60, messageId: "m-1")
        let pendingAtFirst = await phone.pendingIds()
        XCTAssertEqual(pendingAtFirst, ["run-1/a"], "scheduled while the acknowledgment waits")

        try await phone.advance(54)  // 6 s before: still waiting for the network
        var pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/a"])
        phone.transport.clearRequests()
        try await phone.advance(1)  // the deadline
        pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty)
        let queued = await phone.client.queuedEvents
        XCTAssertTrue(queued.isEmpty, "the acknowledgment is taken back, it must not arrive late")
        XCTAssertTrue(phone.activity.all.contains(.planWithdrawn(localId: "run-1/a", messageId: "m-1", acknowledgmentMayHaveArrived: false)))

        phone.network.setOnline(true)
        await phone.client.networkDidBecomeAvailable()
        let shown = try await phone.advance(10)
        XCTAssertTrue(shown.isEmpty)
        XCTAssertFalse(phone.postedNames.contains("$local.scheduled"))
    }

    func testLastSendIgnoresTheBackoffAndKeepsThePlanWhenItSucceeds() async throws {
        let phone = try await TestPhone()
        phone.transport.script(.status(503), .status(503))
        await phone.receivePlan("run-1/a", in: 60)  // first send fails: retry at +2
        try await phone.advance(2)  // second fails: retry at +6
        let retry = await phone.client.nextRetryDate
        XCTAssertEqual(retry, TestPhone.start.addingTimeInterval(6))
        // Push the backoff far out, then reach the deadline.
        phone.transport.script(.status(503), .status(503), .status(503))
        try await phone.advance(4)
        try await phone.advance(8)
        try await phone.advance(16)
        let before = phone.transport.eventRequests.count
        let farRetry = await phone.client.nextRetryDate
        XCTAssertGreaterThan(farRetry ?? .distantPast, TestPhone.start.addingTimeInterval(55))
        try await phone.advance(55 - 30)  // the deadline, inside the backoff
        XCTAssertEqual(phone.transport.eventRequests.count, before + 1, "one last send, despite the backoff")
        let record = await phone.client.planBook.records["run-1/a"]
        XCTAssertEqual(record?.acknowledgmentConfirmed, true)
        let shown = try await phone.advance(5)
        XCTAssertEqual(shown.map(\.id), ["run-1/a"])
    }

    func testAmbiguousFailureIsReportedAsPossiblyArrived() async throws {
        let phone = try await TestPhone()
        phone.transport.setFallback(.timeout)
        await phone.receivePlan("run-1/a", in: 30, messageId: "m-1")
        try await phone.advance(25)
        XCTAssertTrue(phone.activity.all.contains(.planWithdrawn(localId: "run-1/a", messageId: "m-1", acknowledgmentMayHaveArrived: true)))
    }

    /// Found by the 10,000-phone fleet: a push delayed to 0.1 s before its moment was scheduled,
    /// its acknowledgment got through 0.3 s after the moment, and the phone showed the plan
    /// beside the fallback. A plan that arrives inside the deadline is left to the fallback.
    func testPlanArrivingInsideTheDeadlineIsLeftToTheFallback() async throws {
        let phone = try await TestPhone()  // deadline 5 s
        await phone.receivePlan("run-1/a", in: 3, messageId: "m-1")
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty, "not scheduled")
        XCTAssertTrue(phone.activity.all.contains(.planRejected(localId: "run-1/a", messageId: "m-1", reason: .insideAcknowledgmentDeadline)))
        let shown = try await phone.advance(3)
        XCTAssertTrue(shown.isEmpty)
        XCTAssertFalse(phone.postedNames.contains("$local.scheduled"), "not acknowledged: the server's fallback shows it")
    }

    func testPlanArrivingInsideTheDeadlineWhileOfflineIsWithdrawnAtOnce() async throws {
        let phone = try await TestPhone()
        phone.network.setOnline(false)
        await phone.receivePlan("run-1/a", in: 3)
        try await phone.waitIdle()
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty)
    }

    func testDisabledDeadlineKeepsUnacknowledgedPlans() async throws {
        let phone = try await TestPhone { $0.acknowledgmentDeadline = nil }
        phone.network.setOnline(false)
        await phone.receivePlan("run-1/a", in: 60)
        let shown = try await phone.advance(60)
        XCTAssertEqual(shown.map(\.id), ["run-1/a"])
    }

    func testFallbackReachingTheAppRemovesThePendingLocalCopy() async throws {
        let phone = try await TestPhone { $0.acknowledgmentDeadline = nil }
        await phone.receivePlan("run-1/a", in: 60, messageId: "m-1")
        let outcome = await phone.client.handleRemoteNotification(payload: Payloads.fallback(localId: "run-1/a", messageId: "m-1"))
        XCTAssertEqual(outcome, .newData)
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty)
        let again = await phone.receivePlan("run-1/a", in: 50, messageId: "m-1")
        XCTAssertEqual(again, .noData, "a late copy of the plan is not scheduled again")
        let unrelated = await phone.client.handleRemoteNotification(payload: Payloads.fallback(localId: "run-9/a", messageId: "m-9"))
        XCTAssertEqual(unrelated, .noData)
    }

    /// A fallback arriving while the person has the app open is shown when the SDK answers
    /// (`willPresent`): a slow network must not hold it back. In a fleet run, a person who
    /// opened a crowded app as doses fell due never saw 16 fallbacks: the SDK waited for a
    /// sync in flight, and the app was suspended before it answered.
    func testFallbackArrivingOnScreenIsAnsweredWithoutWaitingForTheNetwork() async throws {
        let phone = try await TestPhone { $0.acknowledgmentDeadline = nil }
        await phone.receivePlan("run-1/a", in: 60, messageId: "m-1")
        try await phone.waitIdle()
        // From now on the server takes 20 s to answer anything.
        phone.transport.setRule { _ in .delayed(20, .status(202, body: "{\"accepted\":1}")) }
        let started = Date()
        let outcome = await phone.client.handleRemoteNotification(payload: Payloads.fallback(localId: "run-1/a", messageId: "m-1"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "answered before the network did")
        XCTAssertEqual(outcome, .newData)
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty, "the local copy is gone before the alert is shown")
        phone.transport.setRule(nil)
    }
}
