import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// Issue 45, race 3: an acknowledgment sent in the last second reaches a slow API after the
/// server decided the window's fallback. The server does not count it and says so (`"late"`),
/// but its answer comes after the moment; a copy still pending would fire beside the fallback.
/// At its last call (``BuzzKitClient/lastCall`` before it fires) a plan whose acknowledgment
/// is on its way leaves the notification center, and the answer decides.
final class LastCallTests: XCTestCase {
    /// A phone whose app lets acknowledgments out until 0.4 s before the moment, and whose
    /// acknowledgment request takes `answerDelay` seconds (real time) to be answered `body`.
    private func phone(answerDelay: TimeInterval, body: String) async throws -> TestPhone {
        let phone = try await TestPhone { $0.acknowledgmentDeadline = 0.4 }
        phone.transport.setRule { $0.method == "POST" ? .delayed(answerDelay, .status(202, body: body)) : nil }
        return phone
    }

    /// Receives a plan firing in 10 s and moves the clock past its last call while its
    /// acknowledgment is on its way; waits until the SDK took it out of the center.
    private func lastCallInFlight(_ phone: TestPhone, _ localId: String, messageId: String) async throws -> Task<Void, Never> {
        let client = phone.client, plan = phone.plan(localId, in: 10, messageId: messageId)
        phone.transport.setPlans([plan])
        let push = Task { _ = await client.handleRemoteNotification(payload: Payloads.members(SilentPlanPayload(local: plan).jsonBytes)) }
        let began = Date()
        while phone.transport.eventRequests.isEmpty, Date().timeIntervalSince(began) < 5 { try await Task.sleep(nanoseconds: 1_000_000) }
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, [localId], "scheduled, its acknowledgment on its way")
        phone.clock.advance(by: 10 - BuzzKitClient.lastCall + 0.05)
        while !phone.activity.all.contains(.planAwaitingAnswer(localId: localId, messageId: messageId)), Date().timeIntervalSince(began) < 5 {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        let left = await phone.pendingIds()
        XCTAssertEqual(left, [], "taken out before it fires")
        return push
    }

    func testAnAcknowledgmentTheServerAnswersLateAfterTheMomentLeavesOnlyTheFallback() async throws {
        let phone = try await phone(answerDelay: 1.5, body: "{\"accepted\":1,\"late\":[\"run-1/a\"]}")
        let push = try await lastCallInFlight(phone, "run-1/a", messageId: "m-1")
        // The moment passes before the answer comes.
        let shown = try await phone.advance(1)
        XCTAssertEqual(shown.map(\.id), [], "the phone shows nothing: the server's fallback is the one shown")
        try await phone.waitIdle()
        XCTAssertTrue(phone.activity.all.contains(.acknowledgmentLate(localId: "run-1/a", messageId: "m-1", alreadyShown: false)))
        let later = try await phone.advance(60)
        XCTAssertEqual(later.map(\.id), [])
        let book = await phone.client.planBook
        XCTAssertNil(book.records["run-1/a"])
        await push.value
    }

    func testAnAcknowledgmentTheServerCountedAfterTheMomentIsShownOnceWhenTheAnswerComes() async throws {
        let phone = try await phone(answerDelay: 1.5, body: "{\"accepted\":1}")
        let push = try await lastCallInFlight(phone, "run-1/a", messageId: "m-1")
        var shown = try await phone.advance(0.5)  // past the moment; the answer comes meanwhile
        shown += try await phone.advance(2)
        XCTAssertEqual(shown.map(\.id), ["run-1/a"], "counted by the server (no fallback): the phone shows it, once")
        XCTAssertTrue(phone.activity.all.contains { if case .planShownLate(localId: "run-1/a", _, _) = $0 { true } else { false } })
        shown = try await phone.advance(3600)
        XCTAssertEqual(shown.map(\.id), [])
        await push.value
    }

    /// The answer comes before the moment: a plan taken out at its last call goes back in at
    /// its own time when counted.
    func testACountedAnswerBeforeTheMomentPutsThePlanBackAtItsTime() async throws {
        let phone = try await phone(answerDelay: 1.5, body: "{\"accepted\":1}")
        let push = try await lastCallInFlight(phone, "run-1/a", messageId: "m-1")
        await push.value
        try await phone.waitIdle()
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/a"], "back in the center before its moment")
        let shown = try await phone.advance(BuzzKitClient.lastCall)
        XCTAssertEqual(shown.map(\.id), ["run-1/a"])
    }

    /// A late answer before the last call: the plan is withdrawn while still pending.
    func testALateAnswerBeforeTheLastCallWithdrawsThePendingPlan() async throws {
        let phone = try await phone(answerDelay: 0, body: "{\"accepted\":1,\"late\":[\"run-1/a\"]}")
        await phone.receivePlan("run-1/a", in: 10, messageId: "m-1")
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, [])
        XCTAssertTrue(phone.activity.all.contains(.acknowledgmentLate(localId: "run-1/a", messageId: "m-1", alreadyShown: false)))
        let shown = try await phone.advance(20)
        XCTAssertEqual(shown.map(\.id), [])
    }

    /// Another plan's acknowledgment is on its way to a slow API when a second plan arrives:
    /// the second acknowledgment waits in the queue behind that request, through its deadline
    /// and its last call. It cannot reach the server before the moment, so the plan must not
    /// be left to fire beside the server's fallback.
    func testAnAcknowledgmentQueuedBehindASlowRequestAtItsLastCallLeavesOnlyOneShown() async throws {
        let phone = try await TestPhone()
        phone.transport.setRule { $0.method == "POST" ? .delayed(2, .status(202, body: "{\"accepted\":1,\"late\":[\"run-2/b\"]}")) : nil }
        let client = phone.client
        let first = phone.plan("run-1/a", in: 600, messageId: "m-1"), second = phone.plan("run-2/b", in: 7, messageId: "m-2")
        phone.transport.setPlans([first, second])
        let pushes = Task {
            _ = await client.handleRemoteNotification(payload: Payloads.members(SilentPlanPayload(local: first).jsonBytes))
        }
        let began = Date()
        while phone.transport.eventRequests.isEmpty, Date().timeIntervalSince(began) < 5 { try await Task.sleep(nanoseconds: 1_000_000) }
        let late = Task { _ = await client.handleRemoteNotification(payload: Payloads.members(SilentPlanPayload(local: second).jsonBytes)) }
        while !(await phone.pendingIds()).contains("run-2/b"), Date().timeIntervalSince(began) < 5 { try await Task.sleep(nanoseconds: 1_000_000) }
        XCTAssertEqual(phone.transport.eventRequests.count, 1, "the second acknowledgment waits behind the first request")
        phone.clock.advance(by: 7 - BuzzKitClient.lastCall + 0.05)
        try await Task.sleep(nanoseconds: 300_000_000)
        let pending = await phone.pendingIds()
        XCTAssertFalse(pending.contains("run-2/b"), "out of the center at its last call: its acknowledgment has not even left")
        var shown = try await phone.advance(1)
        await pushes.value
        await late.value
        try await phone.waitIdle()
        shown += try await phone.advance(60)
        XCTAssertEqual(shown.map(\.id).filter { $0 == "run-2/b" }, [], "the server's fallback is the one shown")
    }

    /// A plan arriving 1.5 s before it fires never enters the center before the server's
    /// answer, so no timer has to catch its last call: counted, it is shown when the answer
    /// comes (here after its moment).
    func testAPlanDueWithinTheConfirmFirstWindowWaitsOutsideTheCenterForTheAnswer() async throws {
        let phone = try await phone(answerDelay: 1.5, body: "{\"accepted\":1}")
        let client = phone.client, plan = phone.plan("run-1/a", in: 1.5, messageId: "m-1")
        phone.transport.setPlans([plan])
        let push = Task { _ = await client.handleRemoteNotification(payload: Payloads.members(SilentPlanPayload(local: plan).jsonBytes)) }
        let began = Date()
        while phone.transport.eventRequests.isEmpty, Date().timeIntervalSince(began) < 5 { try await Task.sleep(nanoseconds: 1_000_000) }
        XCTAssertTrue(phone.activity.all.contains(.planAwaitingAnswer(localId: "run-1/a", messageId: "m-1")))
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, [], "not in the center while its acknowledgment is on its way")
        var shown = try await phone.advance(2)  // past the moment; the answer comes meanwhile
        shown += try await phone.advance(2)
        XCTAssertEqual(shown.map(\.id), ["run-1/a"], "counted: shown once, when the answer came")
        await push.value
    }
}
